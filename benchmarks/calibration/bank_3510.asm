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
    ; the sample's indices: 0..255 in order over the four passes
    .ub 0x0, u32, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    .ub 0x40, u32, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
    .ub 0x80, u32, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47
    .ub 0xc0, u32, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
    .ub 0x100, u32, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79
    .ub 0x140, u32, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95
    .ub 0x180, u32, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111
    .ub 0x1c0, u32, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127
    .ub 0x200, u32, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143
    .ub 0x240, u32, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159
    .ub 0x280, u32, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175
    .ub 0x2c0, u32, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191
    .ub 0x300, u32, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207
    .ub 0x340, u32, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223
    .ub 0x380, u32, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239
    .ub 0x3c0, u32, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255
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
