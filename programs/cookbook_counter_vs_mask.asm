; Cookbook recipe 3: a ragged tail of N = 200 elements - counter mode vs. a hand-made tail mask.
;
; count=N runs ceil(N / lanes) iterations and masks the last one to N % lanes lanes.
; By hand: floor(N / lanes) full iterations, then one instruction with mask=N % lanes
; whose operands start floor(N / lanes) VLs (256 B each) further on.
;            lanes  count=200            by hand
;   f16      128    2 iterations: 128+72 repeat=1, then mask=72 at +0x100
;   f32       64    4 iterations: 3*64+8 repeat=3, then mask=8  at +0x300
; The pitfall (C16): mask=72 together with repeat=2 masks EVERY iteration, so lanes 72..127
; of iteration 0 (elements 72..127) are skipped too.
; Every output starts as -1; the sources are 2.0, the result 2 + 1 = 3.
.equ SRC16, 0x0000         ; 256 f16
.equ SRC32, 0x1000         ; 256 f32
.equ A16,   0x2000
.equ B16,   0x2200
.equ C16,   0x2400
.equ F32,   0x3000
.equ G32,   0x3400
.ubfill SRC16, f16, 256, 2.0
.ubfill SRC32, f32, 256, 2.0
.ubfill A16, f16, 256, -1.0
.ubfill B16, f16, 256, -1.0
.ubfill C16, f16, 256, -1.0
.ubfill F32, f32, 256, -1.0
.ubfill G32, f32, 256, -1.0

    VADDS.f16 [A16], [SRC16], 1.0, count=200                        ; counter mode
    VADDS.f16 [B16], [SRC16], 1.0                                   ; by hand: 1 full VL
    VADDS.f16 [B16 + 0x100], [SRC16 + 0x100], 1.0, mask=72          ;          + 72 lanes
    VADDS.f16 [C16], [SRC16], 1.0, repeat=2, mask=72                ; pitfall
    VADDS.f32 [F32], [SRC32], 1.0, count=200                        ; counter mode
    VADDS.f32 [G32], [SRC32], 1.0, repeat=3                         ; by hand: 3 full VLs
    VADDS.f32 [G32 + 0x300], [SRC32 + 0x300], 1.0, mask=8           ;          + 8 lanes
    HALT

; f16 elements 127..128, 198..201 and 255 (element e at base + 2e)
; EXPECT ub:0x20fe:f16:2 = 3 3
; EXPECT ub:0x218c:f16:4 = 3 3 -1 -1
; EXPECT ub:0x21fe:f16:1 = -1
; EXPECT ub:0x22fe:f16:2 = 3 3
; EXPECT ub:0x238c:f16:4 = 3 3 -1 -1
; EXPECT ub:0x23fe:f16:1 = -1
; pitfall: elements 70..73, 127..128, 198..201
; EXPECT ub:0x248c:f16:4 = 3 3 -1 -1
; EXPECT ub:0x24fe:f16:2 = -1 3
; EXPECT ub:0x258c:f16:4 = 3 3 -1 -1
; f32 elements 191..192, 198..201 and 255 (element e at base + 4e)
; EXPECT ub:0x32fc:f32:2 = 3 3
; EXPECT ub:0x3318:f32:4 = 3 3 -1 -1
; EXPECT ub:0x33fc:f32:1 = -1
; EXPECT ub:0x36fc:f32:2 = 3 3
; EXPECT ub:0x3718:f32:4 = 3 3 -1 -1
; EXPECT ub:0x37fc:f32:1 = -1
