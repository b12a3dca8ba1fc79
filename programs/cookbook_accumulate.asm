; Cookbook recipe 5: accumulate across iterations with dstrep=0.
;
; With dstrep=0 every iteration writes the same 8 blocks; iterations run in order, so an
; iteration that also READS those blocks (the accumulator source with rep stride 0) sees the
; previous iteration's result.
;   A  column sum of 4 rows: ACC = ACC + row_r, r = 0..3, rows 1, 2, 3, 4 -> 10.
;   B  the pitfall: src0rep left at 8. Iteration r reads ACC2 + r * 256 (here 0, 100, 200, 300),
;      not the accumulator, and only the last write survives: 300 + 4 = 304.
;   C  counter mode folds a ragged vector into one VL: X has 200 elements (128 ones, then twos;
;      elements 200..255 are twos too, but past the count). Iteration 1 has 72 lanes, so
;      lanes 0..71 end at 0 + 1 + 2 = 3 and lanes 72..127 keep iteration 0's 1.
;   D  a sliding sum over datablocks: src1rep=1 shifts the source one block per iteration.
;      XB block k holds k + 1; ACC4 block b = sum over r = 0..2 of XB block b + r = 3b + 6.
.equ ROWS, 0x0000          ; 4 rows x 128 f16
.equ X,    0x0400          ; 256 f16
.equ XB,   0x0800          ; 10 blocks of 16 f16
.equ ACC,  0x1000
.equ ACC2, 0x2000          ; 4 VLs: 0, 100, 200, 300
.equ ACC3, 0x3000
.equ ACC4, 0x4000
.ubfill ROWS + 0x000, f16, 128, 1.0
.ubfill ROWS + 0x100, f16, 128, 2.0
.ubfill ROWS + 0x200, f16, 128, 3.0
.ubfill ROWS + 0x300, f16, 128, 4.0
.ubfill X, f16, 128, 1.0
.ubfill X + 0x100, f16, 128, 2.0
.ubfill XB + 0x000, f16, 16, 1.0
.ubfill XB + 0x020, f16, 16, 2.0
.ubfill XB + 0x040, f16, 16, 3.0
.ubfill XB + 0x060, f16, 16, 4.0
.ubfill XB + 0x080, f16, 16, 5.0
.ubfill XB + 0x0a0, f16, 16, 6.0
.ubfill XB + 0x0c0, f16, 16, 7.0
.ubfill XB + 0x0e0, f16, 16, 8.0
.ubfill XB + 0x100, f16, 16, 9.0
.ubfill XB + 0x120, f16, 16, 10.0
.ubfill ACC2 + 0x100, f16, 128, 100.0
.ubfill ACC2 + 0x200, f16, 128, 200.0
.ubfill ACC2 + 0x300, f16, 128, 300.0

    VADD.f16 [ACC], [ACC], [ROWS], repeat=4, dstrep=0, src0rep=0              ; A
    VADD.f16 [ACC2], [ACC2], [ROWS], repeat=4, dstrep=0                       ; B (pitfall)
    VADD.f16 [ACC3], [ACC3], [X], count=200, dstrep=0, src0rep=0              ; C
    VADD.f16 [ACC4], [ACC4], [XB], repeat=3, dstrep=0, src0rep=0, src1rep=1   ; D
    HALT

; A
; EXPECT ub:0x1000:f16:1 = 10
; EXPECT ub:0x10fe:f16:2 = 10 0
; B: and ACC2 + 0x100 is only read
; EXPECT ub:0x2000:f16:1 = 304
; EXPECT ub:0x20fe:f16:2 = 304 100
; C: lanes 0, 71..72, 127
; EXPECT ub:0x3000:f16:1 = 3
; EXPECT ub:0x308e:f16:2 = 3 1
; EXPECT ub:0x30fe:f16:2 = 1 0
; D: the block 0/1 boundary, block 7, past the end
; EXPECT ub:0x401e:f16:2 = 6 9
; EXPECT ub:0x40e0:f16:1 = 27
; EXPECT ub:0x40fe:f16:2 = 27 0
