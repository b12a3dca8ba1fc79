; Transposes (docs/language.md, "Transposes"). VTRANS turns a 16 x 16 tile of f16 around its
; diagonal; VTRANS5HD turns 16 channels of 32 positions (NCHW, C = 16, H * W = 32) into 32
; positions of 16 channels (NC1HWC0 with C0 = 16), its 16 source and 16 destination datablocks named
; by two address lists that the scalar unit writes with ST.
;   TILE holds 0, 1, ..., 255 row by row, (y, x) = 16 y + x; OUT gets (y, x) = 16 x + y
;   CHW holds channel c, position p = 32 c + p; HWC gets position p, channel c at HWC + (16 p + c) * 2
.equ TILE,  0x0
.equ OUT,   0x200
.equ CHW,   0x400
.equ HWC,   0x800
.equ LISTS, 0xC00                              ; the source list, then the destination list
    VARANGE.f16 [TILE], 0.0, repeat=2          ; 0, 1, ..., 255
    VARANGE.f16 [CHW], 0.0, repeat=4           ; 0, 1, ..., 511
    BARRIER V                                  ; (the a2 overlaps V instructions unless told)
    VTRANS.f16 [OUT], [TILE]
    MOV S1, 0
    MOV S2, CHW                                ; source block i: channel i's first 16 positions
    MOV S3, HWC                                ; destination block j: position j's 16 channels
    MOV S4, LISTS
lists:
    ST.u64 [S4], S2
    ST.u64 [S4 + 128], S3
    ADD S2, S2, 64
    ADD S3, S3, 32
    ADD S4, S4, 8
    ADD S1, S1, 1
    BLT S1, 16, lists
    MOV S4, LISTS
    ADD S5, S4, 128
    VTRANS5HD.f16 [S5], [S4], repeat=2, srcrep=1, dstrep=16   ; then positions 16..31
    HALT
; EXPECT ub:0x200:f16:16 = 0 16 32 48 64 80 96 112 128 144 160 176 192 208 224 240
; EXPECT ub:0x220:f16:4 = 1 17 33 49
; EXPECT ub:0x3e0:f16:4 = 15 31 47 63
; EXPECT ub:0x800:f16:16 = 0 32 64 96 128 160 192 224 256 288 320 352 384 416 448 480
; EXPECT ub:0xa20:f16:4 = 17 49 81 113
; EXPECT ub:0xbe0:f16:4 = 31 63 95 127
