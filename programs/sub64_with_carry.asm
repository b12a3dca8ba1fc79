; Recipe: 64-bit subtraction out of u32 lanes with VSUB's carry (CANN Ascend C API
; reference, C API asc_sub, with carry).
;
; VSUB.u32 Vd, Va, Vb, Pm, carry=Pc computes {carry, d} = {0,a} + {0,~b} + 1: the carry is 1
; exactly where a >= b (no borrow) and fills all 4 mask bits of the lane; masked-off lanes
; get d = 0 and carry = 0. Each 64-bit value is split into a low and a high u32 array:
;     d_lo = a_lo - b_lo                  carry = (a_lo >= b_lo)
;     d_hi = a_hi - b_hi - 1 + carry      the borrow is 1 - carry
; The carry is turned into 0/1 integers by adding 1 under it to a zero register
; (inactive lanes of a compute result are zero; a vector function also starts with V0..V31
; zero, so V6 would be zero anyway: the VSUB makes it explicit). PST stores the carry mask
; itself: one bit per byte of VL, so u32 lane i owns bits 4i..4i+3.
; Only 8 lanes are active (PSET VL8); VST leaves lanes 8..63 of the outputs untouched.
;
;   a                        b                        a - b
;   0x00000001_00000000      0x00000000_00000001      0x00000000_ffffffff
;   0x00000005_00000007      0x00000002_00000009      0x00000002_fffffffe
;   0xffffffff_ffffffff      0xffffffff_ffffffff      0
;   0                        1                        0xffffffff_ffffffff
;   0x12345678_9abcdef0      0x02345678_9abcdef1      0x0fffffff_ffffffff
;   10                       3                        7
;   0x00000001_00000001      2                        0x00000000_ffffffff
;   7                        7                        0
.equ A_LO, 0x0000
.equ A_HI, 0x0100
.equ B_LO, 0x0200
.equ B_HI, 0x0300
.equ D_LO, 0x1000
.equ D_HI, 0x1100
.equ CARRY, 0x1200
.ub A_LO, u32, 0x0, 0x7, 0xffffffff, 0x0, 0x9abcdef0, 10, 0x1, 7
.ub A_HI, u32, 0x1, 0x5, 0xffffffff, 0x0, 0x12345678, 0, 0x1, 0
.ub B_LO, u32, 0x1, 0x9, 0xffffffff, 0x1, 0x9abcdef1, 3, 0x2, 7
.ub B_HI, u32, 0x0, 0x2, 0xffffffff, 0x0, 0x02345678, 0, 0x0, 0
.ubfill D_LO, u32, 64, 0xdeadbeef
.ubfill D_HI, u32, 64, 0xdeadbeef

    MOV S1, A_LO
    MOV S2, A_HI
    MOV S3, B_LO
    MOV S4, B_HI
    MOV S5, D_LO
    MOV S6, D_HI
    MOV S7, CARRY
    VF.BEGIN
        PSET.b32 P0, VL8
        VLD.u32 V0, [S1]
        VLD.u32 V1, [S2]
        VLD.u32 V2, [S3]
        VLD.u32 V3, [S4]
        VSUB.u32  V4, V0, V2, P0, carry=P1    ; low words; P1 = no borrow
        VSUB.u32  V5, V1, V3, P0              ; high words, borrow not yet applied
        VSUB.u32  V6, V0, V0, P0              ; zero
        VADDS.u32 V7, V6, 1, P1               ; 1 where no borrow, 0 elsewhere
        VADDS.u32 V5, V5, 0xffffffff, P0      ; - 1 (wraps)
        VADD.u32  V5, V5, V7, P0              ; + carry
        VST.u32 [S5], V4, P0
        VST.u32 [S6], V5, P0
        PST [S7], P1
    VF.END
    HALT

; EXPECT ub:0x1000:u32:9 = 0xffffffff 0xfffffffe 0x0 0xffffffff 0xffffffff 7 0xffffffff 0 0xdeadbeef
; EXPECT ub:0x1100:u32:9 = 0x0 0x2 0x0 0xffffffff 0x0fffffff 0 0 0 0xdeadbeef
; carry in lanes 2, 5 and 7 -> mask bits 8..11, 20..23, 28..31; the rest of the 32 bytes are 0
; EXPECT ub:0x1200:u32:8 = 0xf0f00f00 0 0 0 0 0 0 0
