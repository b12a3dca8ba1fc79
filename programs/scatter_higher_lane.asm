; Recipe: VSCATTER with repeated indices - the higher active lane wins.
;
; Lane i stores s[i] to the f16 at OUT + idx[i] * 2 (idx: u16 lanes, counted in elements).
;   lanes   0   1   2   3   4   5   6   7
;   idx     2   2   5   0   5   5   1   7
;   value  10  11  12  13  14  15  16  17
; With VL8: OUT_A[2] = 11 (lane 1 beats lane 0), OUT_A[5] = 15 (lane 5 beats 2 and 4).
; With VL4 only lanes 0..3 store: OUT_B[5] = 12, since lanes 4 and 5 are masked off and a
; masked-off lane never writes. Lanes 8..127 hold index 0 but are masked off in both, so
; OUT[0] keeps lane 3's 13. Elements nobody names keep their -1.
; Both scatters run in one vector function; they write different buffers, so nothing needs
; ordering between them.
.equ VALS,  0x0000
.equ IDX,   0x0100
.equ OUT_A, 0x1000
.equ OUT_B, 0x1100
.ub VALS, f16, 10, 11, 12, 13, 14, 15, 16, 17
.ub IDX, u16, 2, 2, 5, 0, 5, 5, 1, 7
.ubfill OUT_A, f16, 16, -1.0
.ubfill OUT_B, f16, 16, -1.0

    MOV S1, VALS
    MOV S2, IDX
    MOV S3, OUT_A
    MOV S4, OUT_B
    VF.BEGIN
        PSET.b16 P0, VL8
        PSET.b16 P1, VL4
        VLD.f16 V0, [S1]
        VLD.u16 V1, [S2]
        VSCATTER.f16 [S3], V0, V1, P0
        VSCATTER.f16 [S4], V0, V1, P1
    VF.END
    HALT

; EXPECT ub:0x1000:f16:9 = 13 16 11 -1 -1 15 -1 17 -1
; EXPECT ub:0x1100:f16:9 = 13 -1 11 -1 -1 12 -1 -1 -1
