; Calibration: cannsim's AXPY vector function (hicann/cann-samples
; Samples/2_Performance/simd_vf_story): z = 2 x + y over 19,500 f32, 305 iterations of UpdateMask,
; two VLD, VMULS, VADD, VST. The simulator reports 625 cycles for one call.
    MOV S1, 0x0
    MOV S2, 0x13100
    MOV S3, 0x26200
    MOV S5, 19500
    VF.BEGIN
    LOOP 305
        PUPDATE.b32 P0, S5
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S2], post=64
        VMULS.f32 V2, V0, 2.0, P0
        VADD.f32 V3, V2, V1, P0
        VST.f32 [S3], V3, P0, post=64
    ENDLOOP
    VF.END
    HALT
