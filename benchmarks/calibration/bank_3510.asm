; Calibration: kernels A, B and C of the 950 bank-conflict sample (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/04_memory_access/bank_conflict_3510), one vector
; function each, chosen with -D KA=1, KB=1 or KC=1 (the others 0). The sample times 1000 calls with
; a counter of ns, so only the ratios between kernels are compared.
.equ KA, 1
.equ KB, 0
.equ KC, 0
.rept KA
    MOV S1, 0x0
    MOV S2, 0x5000
    MOV S3, 0xA000
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 64
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S2], post=64
        VADD.f32 V2, V0, V1, P0
        VST.f32 [S3], V2, P0, post=64
    ENDLOOP
    VF.END
.endr
.rept KB
    MOV S1, 0x0
    MOV S3, 0x4100
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 8
        VLD.f32 V0, [S1], post=64
        VADDS.f32 V2, V0, 0.0, P0
        VST.f32 [S3], V2, P0, post=64
    ENDLOOP
    VF.END
.endr
.rept KC
    MOV S1, 0x0
    MOV S2, 0x400
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 4
        VLD.u32 V0, [S1], post=64
        VGATHER.f32 V1, [S2], V0, P0
        VADDS.f32 V2, V1, 1.0, P0
        VSCATTER.f32 [S2], V2, V0, P0
    ENDLOOP
    VF.END
.endr
    HALT
