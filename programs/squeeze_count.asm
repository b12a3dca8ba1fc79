; Stream compaction with VSQZ ..., cnt=Sn (950): each row's positive floats, packed to the front of a
; register, stored one row after another. cnt=S5 gives the function the row's count k, which it uses
; three ways: PUPDATE makes the store's mask of the first k lanes (a row that keeps nothing writes
; nothing), the output moves on by k rounded up to 8 floats (a store's address is 32-byte aligned),
; and S7 sums the counts. Row 0 keeps 10 floats (64 bytes of output), row 1 none, row 2 three.
; PROFILE 950
.equ IN,    0x0
.equ OUT,   0x1000
.equ TOTAL, 0x2000
.ub IN + 0,   f32, 1.5, -2.0, 3.0, 4.0, -5.0, 6.0, 7.0, -8.0, 9.0, 10.0, 11.0, -12.0, 13.0, 14.0, -15.0, -16.0
.ub IN + 64,  f32, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -0.0
.ub IN + 128, f32, -1.0, 0.5, -1.0, -1.0, -1.0, -1.0, -1.0, 0.25, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 2.0
    MOV S1, IN
    MOV S3, OUT
    MOV S7, 0
    VF.BEGIN
        PSET.b32 P0, VL16                ; a row: 16 floats
        LOOP 3
            VLD.f32 V0, [S1], post=16
            VCMPS.GT.f32 P1, V0, 0.0, P0 ; its positive floats
            VSQZ.f32 V1, V0, P1, cnt=S5  ; to lanes 0..k-1 of V1; the function's S5 = k
            ADD S7, S7, S5
            ADD S6, S5, 0
            PUPDATE.b32 P2, S6           ; the first k lanes
            VST.f32 [S3], V1, P2
            ADD S6, S5, 7
            SHR S6, S6, 3
            SHL S6, S6, 5                ; k floats, rounded up to 32 bytes
            ADD S3, S3, S6
        ENDLOOP
        PSET.b32 P3, VL1
        VDUP.u32 V3, S7, P3
        VST.u32 [TOTAL], V3, P3
    VF.END
    BARRIER ALL
    HALT
; EXPECT ub:0x1000:f32:19 = 1.5 3 4 6 7 9 10 11 13 14 0 0 0 0 0 0 0.5 0.25 2
; EXPECT ub:0x2000:u32:1 = 13
