; Recipe: rows padded to 9 datablocks, walked with repeat stride 9.
;
; Three rows of 128 f16 are stored 288 bytes apart (8 datablocks of data + 1 pad block,
; as in figure 5 of the tensor API document). Row r holds r + 1, its pad block 99.
;   1. srcrep=9, dstrep=9: the output keeps the padded layout; its pad blocks are never
;      written (they stay 0, not 2 * 99).
;   2. srcrep=9, dstrep=8: the same rows packed densely (the pads are squeezed out).
.equ SRC,    0x0000        ; rows at 0x000, 0x120, 0x240; pads at 0x100, 0x220, 0x340
.equ PADDED, 0x1000
.equ PACKED, 0x2000
.ubfill 0x0000, f16, 128, 1.0
.ubfill 0x0100, f16, 16, 99.0
.ubfill 0x0120, f16, 128, 2.0
.ubfill 0x0220, f16, 16, 99.0
.ubfill 0x0240, f16, 128, 3.0
.ubfill 0x0340, f16, 16, 99.0

    VMULS.f16 [PADDED], [SRC], 2.0, repeat=3, srcrep=9, dstrep=9
    VMULS.f16 [PACKED], [SRC], 1.0, repeat=3, srcrep=9              ; dstrep defaults to 8
    HALT

; padded: end of row 0 | its pad | start of row 1 ...
; EXPECT ub:0x10fc:f16:4 = 2 2 0 0
; EXPECT ub:0x111c:f16:4 = 0 0 4 4
; EXPECT ub:0x121c:f16:4 = 4 4 0 0
; EXPECT ub:0x123c:f16:4 = 0 0 6 6
; EXPECT ub:0x133c:f16:4 = 6 6 0 0
; packed: 128 ones, 128 twos, 128 threes, nothing after
; EXPECT ub:0x20fc:f16:4 = 1 1 2 2
; EXPECT ub:0x21fc:f16:4 = 2 2 3 3
; EXPECT ub:0x22fc:f16:4 = 3 3 0 0
