; Calibration: the 950's softmax tuning sample (asc-devkit examples/01_simd_cpp_api/05_best_practices/
; 02_reg_compute/softmax_high_performance): softmax over the rows of a 128 x 128 f32 x, one vector
; function, y = exp(x - max) / sum(exp(x - max)). Two row loops with a MEMBAR between them, two VLs
; a row:
;   phase 1, a row: max = lowest; 2 x (VLD x, VMAX); VREDUCE.MAX; VDUP (lane 0 to all);
;            2 x (VLD x, VEXPDIF e = exp(x - max), VST e)
;   phase 2, a row: sum = 0; 2 x (VLD e, VADD); VREDUCE.SUM; VDUP; 2 x (VLD e, VDIV y = e / sum, VST y)
; UNROLL=2 takes rows i and i + 64 in one pass, with registers of their own (the sample's cases 3
; and 5); UPDATE=1 sets the inner loops' mask with PUPDATE from a count (UpdateMask: cases 2 and 3),
; UPDATE=0 uses the full mask (the main-tail mode of cases 4 and 5, whose tail is empty for 128).
; UB as the sample allocates it: x at 0x0, y at 0x10000, e at 0x20000.
.equ UNROLL, 1
.equ UPDATE, 0
; A pass over the rows: each row's ACC (VMAX or VADD) from INIT over its two VLs, reduced (RED =
; MAX or SUM) and spread to every lane, then each VL through THEN (VEXPDIF or VDIV) with it, stored.
; S1/S2 read rows i (S11/S12 rows i + 64), S3 (S13) writes them.
.macro ROWPASS init, acc, red, then
    LOOP 128 / UNROLL
        MOV S5, 128             ; the row's element count, for PUPDATE
        MOV S15, 128
        VDUP.f32 V1, \init, P0
.rept UNROLL - 1
        VDUP.f32 V11, \init, P1
.endr
        LOOP 2
.rept UPDATE
            PUPDATE.b32 P0, S5
.endr
            VLD.f32 V0, [S1], post=64
.rept UNROLL - 1
.rept UPDATE
            PUPDATE.b32 P1, S15
.endr
            VLD.f32 V10, [S11], post=64
.endr
            \acc.f32 V1, V1, V0, P0
.rept UNROLL - 1
            \acc.f32 V11, V11, V10, P1
.endr
        ENDLOOP
        VREDUCE.\red.f32 V1, V1, P0
.rept UNROLL - 1
        VREDUCE.\red.f32 V11, V11, P1
.endr
        VDUP.f32 V1, V1, P0
.rept UNROLL - 1
        VDUP.f32 V11, V11, P1
.endr
        LOOP 2
            VLD.f32 V0, [S2], post=64
.rept UNROLL - 1
            VLD.f32 V10, [S12], post=64
.endr
            \then.f32 V2, V0, V1, P0
.rept UNROLL - 1
            \then.f32 V12, V10, V11, P1
.endr
            VST.f32 [S3], V2, P0, post=64
.rept UNROLL - 1
            VST.f32 [S13], V12, P1, post=64
.endr
        ENDLOOP
    ENDLOOP
.endm
    MOV S1, 0x0                 ; phase 1 reads x twice a row and writes e
    MOV S2, 0x0
    MOV S3, 0x20000
    MOV S11, 0x8000
    MOV S12, 0x8000
    MOV S13, 0x28000
    VF.BEGIN
    PSET.b32 P0, ALL
    PSET.b32 P1, ALL            ; row i + 64's mask (UNROLL=2)
    ROWPASS -3.4028235e38, VMAX, MAX, VEXPDIF
    MEMBAR                      ; phase 2 reads what phase 1 wrote
    MOV S1, 0x20000             ; phase 2 reads e twice a row and writes y
    MOV S2, 0x20000
    MOV S3, 0x10000
    MOV S11, 0x28000
    MOV S12, 0x28000
    MOV S13, 0x18000
    ROWPASS 0.0, VADD, SUM, VDIV
    VF.END
    HALT
