; Cookbook recipe 2: strided columns - block stride > 1 and the repeat stride that goes with it.
;
; M is a row-major matrix of 8 rows x 32 f32: 4 datablocks (128 B) per row. Datablock k
; (row k / 4, column block k % 4) holds 8 copies of k.
;   A  column blocks as iterations: srcblk=4 steps one row (4 blocks) per datablock,
;      srcrep=1 steps one column block per iteration. Iteration c gathers column block c
;      of rows 0..7: T block r of iteration c = M block 4r + c (a block transpose).
;   B  every other block, de-interleaved: srcblk=2, srcrep=1, repeat=2 -> iteration 0 takes
;      blocks 0, 2, ..., 14, iteration 1 blocks 1, 3, ..., 15.
;   C  the pitfall: srcblk=2 with the default srcrep=8. Iteration 1 starts at block 8, so it
;      re-reads blocks 8..14; walking the even blocks densely needs srcrep = 8 * 2 = 16.
;   D  a strided destination: negate column block 3 in place (dstblk=4, srcblk=4); the
;      blocks between are not written.
.equ M,  0x0000            ; 32 blocks = 0x400 bytes
.equ T,  0x1000
.equ E,  0x2000
.equ W,  0x3000
.equ W2, 0x3400
.ubfill 0x0000, f32, 8, 0.0
.ubfill 0x0020, f32, 8, 1.0
.ubfill 0x0040, f32, 8, 2.0
.ubfill 0x0060, f32, 8, 3.0
.ubfill 0x0080, f32, 8, 4.0
.ubfill 0x00a0, f32, 8, 5.0
.ubfill 0x00c0, f32, 8, 6.0
.ubfill 0x00e0, f32, 8, 7.0
.ubfill 0x0100, f32, 8, 8.0
.ubfill 0x0120, f32, 8, 9.0
.ubfill 0x0140, f32, 8, 10.0
.ubfill 0x0160, f32, 8, 11.0
.ubfill 0x0180, f32, 8, 12.0
.ubfill 0x01a0, f32, 8, 13.0
.ubfill 0x01c0, f32, 8, 14.0
.ubfill 0x01e0, f32, 8, 15.0
.ubfill 0x0200, f32, 8, 16.0
.ubfill 0x0220, f32, 8, 17.0
.ubfill 0x0240, f32, 8, 18.0
.ubfill 0x0260, f32, 8, 19.0
.ubfill 0x0280, f32, 8, 20.0
.ubfill 0x02a0, f32, 8, 21.0
.ubfill 0x02c0, f32, 8, 22.0
.ubfill 0x02e0, f32, 8, 23.0
.ubfill 0x0300, f32, 8, 24.0
.ubfill 0x0320, f32, 8, 25.0
.ubfill 0x0340, f32, 8, 26.0
.ubfill 0x0360, f32, 8, 27.0
.ubfill 0x0380, f32, 8, 28.0
.ubfill 0x03a0, f32, 8, 29.0
.ubfill 0x03c0, f32, 8, 30.0
.ubfill 0x03e0, f32, 8, 31.0

    VADDS.f32 [T], [M], 0.0, repeat=4, srcblk=4, srcrep=1               ; A
    VADDS.f32 [E], [M], 0.0, repeat=2, srcblk=2, srcrep=1               ; B
    VADDS.f32 [W], [M], 0.0, repeat=2, srcblk=2                         ; C (pitfall)
    VADDS.f32 [W2], [M], 0.0, repeat=2, srcblk=2, srcrep=16             ; C (fixed)
    VMULS.f32 [M + 0x60], [M + 0x60], -1.0, dstblk=4, srcblk=4           ; D
    HALT

; A: T + c*0x100 + r*0x20 holds 4r + c
; EXPECT ub:0x1000:f32:1 = 0
; EXPECT ub:0x101c:f32:2 = 0 4
; EXPECT ub:0x10e0:f32:1 = 28
; EXPECT ub:0x10fc:f32:2 = 28 1
; EXPECT ub:0x11e0:f32:1 = 29
; EXPECT ub:0x13e0:f32:1 = 31
; EXPECT ub:0x13fc:f32:2 = 31 0
; B: E + r*0x100 + b*0x20 holds 2b + r
; EXPECT ub:0x201c:f32:2 = 0 2
; EXPECT ub:0x20fc:f32:2 = 14 1
; EXPECT ub:0x21fc:f32:2 = 15 0
; C: with srcrep=8 iteration 1 is blocks 8, 10, ..., 22; with srcrep=16 it is 16, 18, ..., 30
; EXPECT ub:0x30e0:f32:1 = 14
; EXPECT ub:0x3100:f32:1 = 8
; EXPECT ub:0x31e0:f32:1 = 22
; EXPECT ub:0x34e0:f32:1 = 14
; EXPECT ub:0x3500:f32:1 = 16
; EXPECT ub:0x35fc:f32:2 = 30 0
; D: blocks 3, 7, ..., 31 negated, their neighbours untouched
; EXPECT ub:0x005c:f32:2 = 2 -3
; EXPECT ub:0x007c:f32:2 = -3 4
; EXPECT ub:0x00e0:f32:1 = -7
; EXPECT ub:0x03dc:f32:2 = 30 -31
; EXPECT ub:0x03fc:f32:2 = -31 0
