; Kernel zoo: the vector epilogue of a matmul + LeakyRelu fusion, c = c >= 0 ? c : 0.001 c in place, f16, 4 vector cores
; Sample: examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_basic_api/matmul_leakyrelu_basic_api.asc
; Port of the CANN asc-devkit sample
; examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_basic_api/
; matmul_leakyrelu_basic_api.asc (mmad_vec_custom, __mix__(1, 2)): C = A @ B with A [512, 128] and
; B [128, 128] half (M, K, N = 512, 128, 128; the sample has no bias), on numBlocks = 2 cube cores
; (singleCoreM = baseM = 256, baseN = 128), each cube core's [256, 128] tile finished by 2 vector cores.
; vcore has no cube unit: the matmul (Mmad into L0C, Fixpipe to GM with F322F16) is computed by the
; generator in numpy, as the sample's gen_data.py does for its golden, and placed in GM at GC as the
; kernel's input, where the cube cores' Fixpipe would have written it. This kernel is the sample's AIV
; part, on its 4 vector cores (--cores 4, core K = GetBlockIdx() on AIV), LeakyReluCompute:
;     cGM = cGM[GetBlockIdx() / 2 * singleCoreM * N]            the cube core's tile
;     gmOffset = GetBlockIdx() % 2 * (baseM / 2 * N)            this core's half: 128 rows
;         -> S5 = (K >> 1) * 256 * 128 * 2 + (K & 1) * 128 * 128 * 2 bytes, i.e. rows 128 K..128 K + 127
;     DataCopyPad(vecLocal, cGM[gmOffset], {blockCount = baseM / 2 = 128, blockLen = baseN * 2 = 256 B,
;                 srcStride = (N - baseN) * 2 = 0})         DMA.GM2UB ..., blocks=128, len=8, srcgap=0
;     SetFlag/WaitFlag<MTE2_V>                             SETFLAG MTE2, V, 0 / WAITFLAG MTE2, V, 0
;     LeakyRelu(vecLocal, vecLocal, (half)0.001, tileLen = baseM / 2 * baseN = 16384)
;                                                          VLRELU.f16 [VEC], [VEC], 0.001, count=16384
;     SetFlag/WaitFlag<V_MTE3>                             SETFLAG V, MTE3, 0 / WAITFLAG V, MTE3, 0
;     DataCopyPad(cGM[gmOffset], vecLocal, {128, 256 B, 0, dstStride 0})   DMA.UB2GM ..., blocks=128
; Differences: the AIC branch and the CrossCoreWaitFlag(0) the vector cores wait on (for the cube's
; Fixpipe) are left out, C being in GM before the kernel starts; no runtime tiling (no struct), since every size
; is a template parameter of the sample (.equ constants here) and alpha the constant (half)0.001.
; LeakyRelu is a tensor (Memory API) call, so the port is a tensor instruction and runs on a2 too.
; Data: gen/leakyrelu.py (the sample's gen_data.py: A, B = randint(-10, 10) half; golden = the f32
; matmul cast to half, then np.where(g >= 0, g, g * 0.001)). c and golden are 4 files of [128, 128]
; half each (a .npy must stay under 64 KB), quarter K being vector core K's rows. Its verify_result.py
; uses rtol = 1e-6, atol = 1e-9 on f16, which is exact; VLRELU rounds the half product once, as numpy
; does, so the check is exact (rtol = atol = 0).
; Run: vcore run programs/kernels/leakyrelu.asm --cores 4   (also --profile a2)
.equ GC, 0x00000           ; GM: C, [512, 128] half, the matmul result (input and output)
.equ M, 512
.equ K, 128
.equ N, 128
.equ SINGLE_CORE_M, 256
.equ BASE_M, 256
.equ BASE_N, 128
.equ VEC, 0x0000           ; UB: vecLocal, baseM / 2 * baseN halves (32 KB)
.equ TILE_LEN, BASE_M / 2 * BASE_N
.equ BLOCK_LEN, BASE_N * 2 / 32            ; blockLen in 32-byte units
.equ SRC_STRIDE, (N - BASE_N) * 2 / 32     ; srcStride (0 here)

    MOV S1, BLOCKIDX
    SHR S2, S1, 1                          ; GetBlockIdx() / 2: the cube core's tile
    MUL S2, S2, SINGLE_CORE_M * N * 2
    AND S3, S1, 1                          ; GetBlockIdx() % 2: this core's half of it
    MUL S3, S3, BASE_M / 2 * N * 2
    ADD S5, S2, S3                         ; gmOffset in bytes
    DMA.GM2UB [VEC], gm[S5 + GC], blocks=BASE_M / 2, len=BLOCK_LEN, srcgap=SRC_STRIDE
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VLRELU.f16 [VEC], [VEC], 0.001, count=TILE_LEN     ; LeakyRelu(vecLocal, vecLocal, (half)0.001, tileLen)
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S5 + GC], [VEC], blocks=BASE_M / 2, len=BLOCK_LEN, dstgap=SRC_STRIDE
    HALT

; RUN --cores 4
; LOAD gm:0x0 = data/leakyrelu/c0.npy
; LOAD gm:0x8000 = data/leakyrelu/c1.npy
; LOAD gm:0x10000 = data/leakyrelu/c2.npy
; LOAD gm:0x18000 = data/leakyrelu/c3.npy
; EXPECT gm:0x0:f16:16384 ~= data/leakyrelu/golden0.npy rtol=0 atol=0
; EXPECT gm:0x8000:f16:16384 ~= data/leakyrelu/golden1.npy rtol=0 atol=0
; EXPECT gm:0x10000:f16:16384 ~= data/leakyrelu/golden2.npy rtol=0 atol=0
; EXPECT gm:0x18000:f16:16384 ~= data/leakyrelu/golden3.npy rtol=0 atol=0
