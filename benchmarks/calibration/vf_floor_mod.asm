; Calibration: the FloorMod vector function on int32 (asc-devkit
; examples/05_simd_simt_hybrid/02_best_practices/simd_simt_high_performance, case 1, SCENARIO_NUM = 1,
; floor_mod_simd): one tile of 8192 int32 (TILE_LENGTH), 128 iterations of UpdateMask; two loads;
; Div, Mul, Sub (the remainder with the quotient truncated); a compare with 0 and a select (-1 where
; the divisor is 0); Add, a compare with 0, two Ands with the sign bit, a compare, a mask And and a
; select (the sign fix); a store. Written as the sample writes it: VDIV, VMUL and VSUB, not VREM.
; The sample measures the vector time of 128 such calls a core (8192 x 8192 int32 on 64 cores).
.equ N, 8192
    MOV S1, 0x0                            ; x
    MOV S2, 0x8000                         ; y
    MOV S3, 0x10000                        ; z
    MOV S7, N                              ; mask_count
    VF.BEGIN
        PSET.b32 P7, ALL
        VDUP.s32 V4, -1, P7                ; default_value
        VDUP.s32 V5, -2147483648, P7       ; sign_value (0x80000000)
        LOOP N / 64
            PUPDATE.b32 P0, S7
            VLD.s32 V0, [S1], post=64
            VLD.s32 V1, [S2], post=64
            VDIV.s32 V3, V0, V1, P0        ; temp = x / y
            VMUL.s32 V3, V1, V3, P0        ; temp = y * temp
            VSUB.s32 V2, V0, V3, P0        ; mod = x - temp
            VCMPS.NE.s32 P1, V1, 0, P0     ; y != 0
            VSEL.s32 V3, V2, V4, P1        ; temp = y != 0 ? mod : -1
            VADD.s32 V2, V3, V1, P0        ; mod = temp + y
            VCMPS.NE.s32 P2, V3, 0, P0     ; temp != 0
            VAND.s32 V0, V3, V5, P0        ; sign bit of temp
            VAND.s32 V1, V1, V5, P0        ; sign bit of y
            VCMP.NE.s32 P1, V0, V1, P0     ; the signs differ
            PAND P2, P1, P2                ; ... and temp != 0
            VSEL.s32 V2, V2, V3, P2        ; z = both ? temp + y : temp
            VST.s32 [S3], V2, P0, post=64
        ENDLOOP
    VF.END
    HALT
