; Recipe: work on one column of a 2-column layout with block strides of 2.
;
; M is 8 rows x 2 datablocks (64 B per row): row r = [L_r | R_r], 16 f16 each.
; Block b of M holds the value b, so L_r = 2r and R_r = 2r + 1.
;   1. SUM = L + R: src0 starts at L_0, src1 at R_0, both with block stride 2, so one
;      iteration reads the 8 left blocks and the 8 right blocks; dst is contiguous.
;   2. R *= 0.5 in place: dstblk=2 and srcblk=2 touch only the right column;
;      the left blocks between them are not written.
.equ M,   0x0000           ; 16 datablocks = 0x200 bytes
.equ SUM, 0x1000
.ubfill 0x0000, f16, 16, 0.0
.ubfill 0x0020, f16, 16, 1.0
.ubfill 0x0040, f16, 16, 2.0
.ubfill 0x0060, f16, 16, 3.0
.ubfill 0x0080, f16, 16, 4.0
.ubfill 0x00a0, f16, 16, 5.0
.ubfill 0x00c0, f16, 16, 6.0
.ubfill 0x00e0, f16, 16, 7.0
.ubfill 0x0100, f16, 16, 8.0
.ubfill 0x0120, f16, 16, 9.0
.ubfill 0x0140, f16, 16, 10.0
.ubfill 0x0160, f16, 16, 11.0
.ubfill 0x0180, f16, 16, 12.0
.ubfill 0x01a0, f16, 16, 13.0
.ubfill 0x01c0, f16, 16, 14.0
.ubfill 0x01e0, f16, 16, 15.0

    VADD.f16  [SUM], [M], [M + 0x20], src0blk=2, src1blk=2     ; SUM block r = 2r + (2r+1) = 4r + 1
    VMULS.f16 [M + 0x20], [M + 0x20], 0.5, dstblk=2, srcblk=2   ; R_r = (2r+1) / 2 = r + 0.5
    HALT

; SUM: first element of each of its 8 contiguous blocks (block r at SUM + 32r), then past it
; EXPECT ub:0x101e:f16:2 = 1 5
; EXPECT ub:0x103e:f16:2 = 5 9
; EXPECT ub:0x10de:f16:2 = 25 29
; EXPECT ub:0x10fe:f16:2 = 29 0
; M after the in-place halving: L_0 | R_0 | L_1 | R_1 boundaries, and the last row
; EXPECT ub:0x001e:f16:2 = 0 0.5
; EXPECT ub:0x003e:f16:2 = 0.5 2
; EXPECT ub:0x005e:f16:2 = 2 1.5
; EXPECT ub:0x01c0:f16:1 = 14
; EXPECT ub:0x01e0:f16:1 = 7.5
; EXPECT ub:0x01fe:f16:1 = 7.5
