; Calibration: the 950 bank-conflict sample (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/04_memory_access/bank_conflict_3510), one vector
; function a run, chosen with -D (set KA=0 when choosing another: KA is 1 by default). The sample
; times 1000 calls with a counter of ns, so only the ratios between kernels are compared.
;   KA=1  kernel A, case 6: dst = src0 + src1, 64 iterations, all three in bank 0 (AddWithoutUnRollVF)
;   KB=1  kernel B, case 11: dst = src0 + 0, 8 iterations, contiguous VLD/VST (the sample's
;         DATA_BLOCK_COPY with block stride 1 written as a plain load and store)
;   KC=1  kernel C, case 9: gather, add 1, scatter, indices 0..255 in order
; The sample's other cases (held out: checks of the model, never fitted):
;   KU=1  cases 1-5 and 7: AddWithUnRollVF, 32 iterations each doing rows i and 32 + i (four
;         loads, two adds, two stores, in the sample's order), at SRC0/SRC1/DST: case 7 at case 6's
;         addresses (the default), cases 1-5 at theirs (-D SRC1=0x5100 -D DST=0xA000 for case 2, ...)
;   KD=1  case 8: ComputeBoundVF, kernel A with ADDS (1000) dependent VADDS x + 1.0 on src0's row
;         between its loads and its add, an inner hardware loop
;   KG=1  case 10: kernel C with the indices 0, 128 alternating (gen_data.py): 32 lanes of each
;         iteration read and write element 0, the other 32 element 128, the same sub-bank (sub 0 of
;         bank 0) in two rows. The sample scatters back into the buffer it gathers from, so every
;         iteration reads and writes what the one before wrote: a race in vcore unless a MEMBAR
;         orders them, and the sample has none. So iteration k scatters into a copy of its own at
;         SCOPY + k * 0x2000 (0x2400, 0x4400, ...: the same banks and sub-banks as the data, 16 or
;         more rows further), each gathering the original data. The schedule is the same: 76
;         cycles like the racing port (-D SCOPY=0x400 with the ADD taken out); a MEMBAR a pass
;         would make it 238.
;   KS=1  cases 11-14: dst = src0 + 0, 8 iterations in DATA_BLOCK_COPY (blk=) mode, both sides:
;         SBLK/DBLK the block strides, SPOST/DPOST the elements the addresses advance an iteration.
;         Case 11 (the default): 1/64 and 1/64; case 12 (by column): 8/8 and 8/8, 8 blocks of a
;         VL 256 bytes apart, all in one bank; case 13: SBLK=0 (8 copies of one block a VL);
;         case 14: SPOST=0 (every iteration loads the same VL).
.equ KA, 1
.equ KB, 0
.equ KC, 0
.equ KU, 0
.equ KD, 0
.equ KG, 0
.equ KS, 0
.equ SRC0, 0x0
.equ SRC1, 0x5000
.equ DST, 0xA000
.equ ADDS, 1000
.equ SCOPY, 0x2400
.equ SBLK, 1
.equ SPOST, 64
.equ DBLK, 1
.equ DPOST, 64
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
.rept KU
    ; rows i of the first half (S1, S2 -> S3) and rows 32 + i of the second (S11, S12 -> S13)
    MOV S1, SRC0
    MOV S2, SRC1
    MOV S3, DST
    MOV S11, SRC0 + 32 * 256
    MOV S12, SRC1 + 32 * 256
    MOV S13, DST + 32 * 256
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 32
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S2], post=64
        VLD.f32 V3, [S11], post=64
        VLD.f32 V4, [S12], post=64
        VADD.f32 V2, V0, V1, P0
        VADD.f32 V5, V3, V4, P0
        VST.f32 [S3], V2, P0, post=64
        VST.f32 [S13], V5, P0, post=64
    ENDLOOP
    VF.END
.endr
.rept KD
    MOV S1, 0x0
    MOV S2, 0x5000
    MOV S3, 0xA000
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 64
        VLD.f32 V0, [S1], post=64
        VLD.f32 V1, [S2], post=64
        LOOP ADDS
            VADDS.f32 V0, V0, 1.0, P0
        ENDLOOP
        VADD.f32 V2, V0, V1, P0
        VST.f32 [S3], V2, P0, post=64
    ENDLOOP
    VF.END
.endr
.rept KG
    ; the sample's indices: 0, 128, 0, 128, ... over the four passes
    .ub 0x0, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x40, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x80, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0xc0, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x100, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x140, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x180, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x1c0, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x200, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x240, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x280, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x2c0, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x300, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x340, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x380, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    .ub 0x3c0, u32, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128, 0, 128
    MOV S1, 0x0
    MOV S2, 0x400
    MOV S3, SCOPY
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 4
        VLD.u32 V0, [S1], post=64
        VGATHER.f32 V1, [S2], V0, P0
        VADDS.f32 V2, V1, 1.0, P0
        VSCATTER.f32 [S3], V2, V0, P0
        ADD S3, S3, 0x2000      ; the next iteration's copy
    ENDLOOP
    VF.END
.endr
.rept KS
    MOV S1, 0x0
    MOV S3, 0x4100
    VF.BEGIN
    PSET.b32 P0, ALL
    LOOP 8
        VLD.f32 V0, [S1], post=SPOST, blk=SBLK
        VADDS.f32 V2, V0, 0.0, P0
        VST.f32 [S3], V2, P0, post=DPOST, blk=DBLK
    ENDLOOP
    VF.END
.endr
    HALT
