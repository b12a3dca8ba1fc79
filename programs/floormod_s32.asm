; FloorMod on int32 (Python's %, the sign of the divisor) in registers:
; VREM gives the remainder with the sign of the dividend; where it is not 0 and its sign differs from
; the divisor's, the divisor is added. Integer VDIV and VREM exist on the 950 only.
;   a = -7 7 -7 6 7 -8 5 -2147483648      b = 2 -2 -2 -3 2 3 0 -1
;   a / b (VDIV, toward zero)  = -3 -3 3 -2 3 -2 -1 -2147483648   (x / 0 is all ones; MIN / -1 wraps)
;   a rem b (VREM)             = -1 1 -1 0 1 -2 5 0               (a % 0 is a)
;   floormod                   = 1 -1 -1 0 1 1 5 0
.equ A, 0x0
.equ B, 0x100
.ub A, s32, -7, 7, -7, 6, 7, -8, 5, -2147483648
.ub B, s32, 2, -2, -2, -3, 2, 3, 0, -1
    MOV S1, A
    MOV S2, B
    MOV S3, 0x200
    MOV S4, 0x300
    MOV S6, 0x400
    VF.BEGIN
    PSET.b32 P0, VL8
    VLD.s32 V0, [S1]
    VLD.s32 V1, [S2]
    VDIV.s32  V5, V0, V1, P0
    VREM.s32  V2, V0, V1, P0          ; r = a rem b (sign of a)
    VST.s32   [S3], V5, P0
    VST.s32   [S4], V2, P0
    VXOR.s32  V3, V2, V1, P0          ; sign of r differs from sign of b ...
    VCMPS.LT.s32 P1, V3, 0, P0
    VCMPS.NE.s32 P2, V2, 0, P0        ; ... and r != 0
    PAND P1, P1, P2
    VADD.s32  V4, V2, V1, P1          ; r + b where both hold
    VSEL.s32  V2, V4, V2, P1
    VST.s32   [S6], V2, P0
    VF.END
    HALT
; EXPECT ub:0x200:s32:8 = -3 -3 3 -2 3 -2 -1 -2147483648
; EXPECT ub:0x300:s32:8 = -1 1 -1 0 1 -2 5 0
; EXPECT ub:0x400:s32:8 = 1 -1 -1 0 1 1 5 0
