; Recipe: gathers - from UB (an s8 table, zero-extended) and from a register (idx % lanes).
;
; UB gather of an 8-bit type: the indices are u16 lanes counted in elements, and the result
; has 128 lanes of 16 bits, zero-extended (CANN API reference, asc_gather: s8 -40 = 0b11011000 becomes
; 216, not -40). Masked-off lanes are zero and are never read: lane 9 holds the index 0xffff,
; which would read past the end of UB from TABLE, but VL8 masks it off.
;
; Register gather: d[i] = s[idx[i] % lanes]; for f16 the index lanes are u16 and lanes = 128,
; so 130 reads lane 2, 257 lane 1, 65535 lane 127 and 1000 lane 104.
; Both run in one vector function (VF.BEGIN ... VF.END), as every register instruction does.
.equ TABLE, 0x3ff00        ; last 256 B of the 950's 256 KiB UB
.equ IDX,   0x0100
.equ OUT,   0x1000
.equ SRCV,  0x0400
.equ RIDX,  0x0600
.equ OUT2,  0x1200
.ub TABLE, s8, 40, -40, 127, -128, -1, 0, 5, -5
.ub IDX, u16, 1, 0, 3, 2, 4, 7, 6, 5, 0, 0xffff
.ubfill OUT, u16, 128, 0xaaaa
.ub SRCV, f16, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5
; lanes 96..127 of the register source: lane 104 = -7, lane 127 = 99
.ub SRCV + 0xc0, f16, 0, 0, 0, 0, 0, 0, 0, 0, -7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 99
.ub RIDX, u16, 3, 130, 257, 65535, 128, 7, 135, 1000

    MOV S1, TABLE
    MOV S2, IDX
    MOV S3, OUT
    MOV S4, SRCV
    MOV S5, RIDX
    MOV S6, OUT2
    VF.BEGIN
        PSET.b16 P0, VL8
        PSET.b16 P1, ALL
        VLD.u16   V0, [S2]
        VGATHER.s8 V1, [S1], V0, P0
        VST.u16   [S3], V1, P1            ; all 128 lanes: lanes 8.. are the zeros of the gather
        VLD.f16   V2, [S4]
        VLD.u16   V3, [S5]
        VGATHER.f16 V4, V2, V3            ; lanes 8..127 have index 0 -> s[0] = 1.5
        VST.f16   [S6], V4, P1
    VF.END
    HALT

; table: 40 -40 127 -128 -1 0 5 -5, read at 1 0 3 2 4 7 6 5
; EXPECT ub:0x1000:u16:10 = 216 40 128 127 255 251 5 0 0 0
; the same bits read as s16: zero-extended, so still non-negative
; EXPECT ub:0x1000:s16:5 = 216 40 128 127 255
; EXPECT ub:0x10fe:u16:1 = 0
; EXPECT ub:0x1200:f16:10 = 4.5 3.5 2.5 99 1.5 8.5 8.5 -7 1.5 1.5
; EXPECT ub:0x12fe:f16:1 = 1.5
