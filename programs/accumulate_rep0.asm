; Recipe: repeat stride 0 on the destination accumulates; iterations run in order.
;
; With dstrep=0 (and the accumulator source's rep stride 0) every iteration reads the
; previous iteration's result and writes it back to the same 8 blocks:
;   1. ACC = ACC + row_r, r = 0..3: a column sum of 4 rows of 64 f32 (1, 2, 4, 8): 0.5 + 15.
;   2. X = X * 2, five times over the same blocks: 1.5 * 32 = 48.
;   3. order matters for D = row_r - D (src1 is the accumulator):
;      0 -> 1 - 0 = 1 -> 2 - 1 = 1 -> 4 - 1 = 3 -> 8 - 3 = 5.
;      (If every iteration read the original D = 0, the result would be 8.)
.equ ROWS, 0x0000          ; 4 rows x 256 B
.equ ACC,  0x1000
.equ X,    0x2000
.equ D,    0x3000
.ubfill 0x0000, f32, 64, 1.0
.ubfill 0x0100, f32, 64, 2.0
.ubfill 0x0200, f32, 64, 4.0
.ubfill 0x0300, f32, 64, 8.0
.ubfill ACC, f32, 64, 0.5
.ubfill X, f16, 128, 1.5

    VADD.f32  [ACC], [ACC], [ROWS], repeat=4, dstrep=0, src0rep=0     ; src1rep stays 8
    VMULS.f16 [X], [X], 2.0, repeat=5, dstrep=0, srcrep=0
    VSUB.f32  [D], [ROWS], [D], repeat=4, dstrep=0, src1rep=0         ; src0rep stays 8
    HALT

; EXPECT ub:0x1000:f32:2 = 15.5 15.5
; EXPECT ub:0x10fc:f32:2 = 15.5 0
; EXPECT ub:0x2000:f16:2 = 48 48
; EXPECT ub:0x20fe:f16:2 = 48 0
; EXPECT ub:0x3000:f32:2 = 5 5
; EXPECT ub:0x30fc:f32:2 = 5 0
