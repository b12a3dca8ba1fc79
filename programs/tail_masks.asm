; Recipe: masks - continuous (mask=N) and bit mode (mask=(LOW, HIGH)).
;
; Lanes outside the mask are left unchanged in the destination. The same mask applies to
; every iteration. In bit mode bit i of LOW is lane i and bit i of HIGH is lane 64 + i;
; 32-bit types have 64 lanes and HIGH must be 0.
;   A  mask=100, repeat=2: lanes 0..99 of each 128-lane iteration.
;   B  0x5555555555555555 in both words: the even lanes of an f16 iteration.
;   C  0x5555555555555555 and 0 for f32: the even lanes of a 64-lane iteration.
;   D  only the last 4 lanes: LOW = 0, HIGH = bits 60..63.
.ubfill 0x0000, f16, 256, 1.0
.ubfill 0x1000, f16, 128, 1.0
.ubfill 0x2000, f32, 64, 1.0
.ubfill 0x3000, f16, 128, 0.0

    VADDS.f16 [0x0000], [0x0000], 2.0, repeat=2, mask=100                         ; A
    VMULS.f16 [0x1000], [0x1000], -4.0, mask=(0x5555555555555555, 0x5555555555555555) ; B
    VADDS.f32 [0x2000], [0x2000], 0.5, mask=(0x5555555555555555, 0)                ; C
    VADDS.f16 [0x3000], [0x3000], 8.0, mask=(0, 0xF000000000000000)                ; D
    HALT

; A: lanes 98..101 of iteration 0 (elements 98..101) and of iteration 1 (226..229)
; EXPECT ub:0x00c4:f16:4 = 3 3 1 1
; EXPECT ub:0x00fc:f16:4 = 1 1 3 3
; EXPECT ub:0x01c4:f16:4 = 3 3 1 1
; EXPECT ub:0x01fe:f16:1 = 1
; B: even lanes -4, odd lanes 1, up to lane 127
; EXPECT ub:0x1000:f16:4 = -4 1 -4 1
; EXPECT ub:0x107c:f16:4 = -4 1 -4 1
; EXPECT ub:0x10fc:f16:2 = -4 1
; C
; EXPECT ub:0x2000:f32:4 = 1.5 1 1.5 1
; EXPECT ub:0x20f8:f32:2 = 1.5 1
; D: lanes 123..127
; EXPECT ub:0x3000:f16:2 = 0 0
; EXPECT ub:0x30f6:f16:5 = 0 8 8 8 8
