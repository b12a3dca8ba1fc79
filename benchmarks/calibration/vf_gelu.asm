; Calibration: the GELU vector function (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/02_reg_compute/gelu_high_performance, case 1): one
; tile of 8192 f32, 128 iterations of UpdateMask; VLD; VMUL; VMUL; VMULS; VADD; VMULS; VEXP; VADDS;
; VDIV; VST. The sample measures the vector time of 128 such calls a core.
.equ N, 8192
    MOV S1, 0x0
    MOV S2, 0x10000
    MOV S3, N
    VF.BEGIN
        LOOP N / 64
            PUPDATE.b32 P0, S3
            VLD.f32 V0, [S1], post=64
            VMUL.f32 V1, V0, V0, P0
            VMUL.f32 V1, V1, V0, P0
            VMULS.f32 V1, V1, 0.044715, P0
            VADD.f32 V1, V0, V1, P0
            VMULS.f32 V1, V1, -1.595769, P0
            VEXP.f32 V1, V1, P0
            VADDS.f32 V1, V1, 1.0, P0
            VDIV.f32 V1, V0, V1, P0
            VST.f32 [S2], V1, P0, post=64
        ENDLOOP
    VF.END
    HALT
