; Kernel zoo: register-level compare and select, z = x > y ? x : y (and x > scalar ? x : y), f32, 4 cores.
; Sample: examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/compare/compare.asc
; Port of the CANN asc-devkit sample examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/compare/
; compare.asc (the sample of that folder that does compare + select; .../select/ only selects with a
; mask it loads from GM). Its vector functions, line by line:
;     CompareVF (SCENARIO_NUM 1):                         ComparesVF (SCENARIO_NUM 2):
;       mask = CreateMask<T, ALL>                           PSET.b32 P0, ALL
;       for i < repeatTimes:                                LOOP S6
;         LoadAlign<POST_MODE_UPDATE>(xReg, xAddr, 64)        VLD.f32 V0, [S1], post=64
;         LoadAlign<POST_MODE_UPDATE>(yReg, yAddr, 64)        VLD.f32 V1, [S2], post=64
;         Compare<T, GT>(maskReg, xReg, yReg, mask)           VCMP.GT.f32 P1, V0, V1, P0
;           (ComparesVF: Compares<T, GT>(maskReg, xReg, scalar, mask)   VCMPS.GT.f32 P1, V0, S9, P0)
;         Select(zReg, xReg, yReg, maskReg)                   VSEL.f32 V2, V0, V1, P1
;         StoreAlign<POST_MODE_UPDATE>(zAddr, zReg, 64, mask) VST.f32 [S3], V2, P0, post=64
; around a CopyIn (DataCopy x, y; MTE2 -> V flag) / asc_vf_call / CopyOut (V -> MTE3 flag; DataCopy z).
; Shapes: x, y, z are [1, 256] float (totalLength = 256, oneRepeatSize = 64, scalar = 0).
; Differences from the sample, and why:
; - Cores: the sample runs on numBlocks = 1. The 256 floats split naturally into 4 slices of 64 (one
;   repeat each), so this port is a kernel of 4 cores, core K (MOV S1, BLOCKIDX) taking elements
;   64 K .. 64 K + 63 of x, y and z; repeatTimes = DivCeil(blockLength, 64) = 1 per core.
; - Tiling: the sample's lengths are constexpr and its scalar an Init argument; since the core split
;   is the port's, the host-side values are a tiling struct in GM read with LD.u32:
;       TILING + 0  totalLength 256    TILING + 4  blockLength 64    TILING + 8  scalar (f32 bits of 0.0)
;   The scalar is used as the register operand of VCMPS (its low 32 bits read as f32). A DMA's len= is
;   a constant, so the copies move BLOCK_BYTES = 64 * 4 bytes (the blockLength of the struct).
; - Scenarios: the sample compiles one vector function per build (SCENARIO_NUM 1: Compare x > y,
;   2: Compares x > scalar). This port runs both, one after the other on the same x and y: CompareVF's
;   z at GZ, ComparesVF's at GZ2, so both are checked.
; Data: gen/compare_select.py (the sample's gen_data.py: x, y = uniform(-2, 2) f32; golden of scenario 1
; np.maximum(x, y), of scenario 2 y with x put where x > 0). The sample's CompareResult allows 1e-4
; (absolute or relative); a select only copies inputs, so the port checks exactly (rtol = atol = 0).
; Run: vcore run programs/kernels/compare_select.asm --cores 4
.equ TILING, 0x2000        ; GM: the tiling struct
.equ GX, 0x0000            ; GM: x, [1, 256] f32
.equ GY, 0x0400            ; GM: y
.equ GZ, 0x0800            ; GM: z of CompareVF (scenario 1)
.equ GZ2, 0x0c00           ; GM: z of ComparesVF (scenario 2)
.equ X, 0x0000             ; UB: this core's 64 floats of x
.equ Y, 0x0100             ; UB: y
.equ Z, 0x0200             ; UB: z (scenario 1)
.equ Z2, 0x0300            ; UB: z (scenario 2)
.equ BLOCK_BYTES, 64 * 4   ; blockLength * sizeof(float)
.equ BLOCK_BLOCKS, BLOCK_BYTES / 32
.gm TILING, u32, 256, 64, 0x00000000

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 4]              ; blockLength (elements)
    LD.u32 S9, gm[TILING + 8]              ; scalar, as f32 bits
    SHL S4, S2, 2                          ; blockLength in bytes
    MUL S5, S1, S4                         ; this core's slice: blockLength * GetBlockIdx() floats
    ADD S6, S2, 63
    SHR S6, S6, 6                          ; repeatTimes = DivCeil(blockLength, oneRepeatSize = 64)
    ; CopyIn
    DMA.GM2UB [X], gm[S5 + GX], len=BLOCK_BLOCKS
    DMA.GM2UB [Y], gm[S5 + GY], len=BLOCK_BLOCKS
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    ; Compute: asc_vf_call<CompareVF<float>>(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize)
    MOV S1, X
    MOV S2, Y
    MOV S3, Z
    VF.BEGIN
        PSET.b32 P0, ALL                   ; CreateMask<T, MaskPattern::ALL>
        LOOP S6
            VLD.f32 V0, [S1], post=64
            VLD.f32 V1, [S2], post=64
            VCMP.GT.f32 P1, V0, V1, P0     ; Compare<T, CMPMODE::GT>(maskReg, xReg, yReg, mask)
            VSEL.f32 V2, V0, V1, P1        ; Select(zReg, xReg, yReg, maskReg)
            VST.f32 [S3], V2, P0, post=64
        ENDLOOP
    VF.END
    ; asc_vf_call<ComparesVF<float>>(xAddr, yAddr, zAddr, scalar, repeatTimes, oneRepeatSize)
    MOV S3, Z2
    VF.BEGIN
        PSET.b32 P0, ALL
        LOOP S6
            VLD.f32 V0, [S1], post=64
            VLD.f32 V1, [S2], post=64
            VCMPS.GT.f32 P1, V0, S9, P0    ; Compares<T, CMPMODE::GT>(maskReg, xReg, scalar, mask)
            VSEL.f32 V2, V0, V1, P1
            VST.f32 [S3], V2, P0, post=64
        ENDLOOP
    VF.END
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    ; CopyOut
    DMA.UB2GM gm[S5 + GZ], [Z], len=BLOCK_BLOCKS
    DMA.UB2GM gm[S5 + GZ2], [Z2], len=BLOCK_BLOCKS
    HALT

; RUN --cores 4
; LOAD gm:0x0 = data/compare_select/x.npy
; LOAD gm:0x400 = data/compare_select/y.npy
; EXPECT gm:0x800:f32:256 ~= data/compare_select/golden.npy rtol=0 atol=0
; EXPECT gm:0xc00:f32:256 ~= data/compare_select/golden_scalar.npy rtol=0 atol=0
