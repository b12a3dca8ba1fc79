; Kernel zoo: sum reduction (ReduceRepeat<SUM>, formerly WholeReduceSum), 8 cores, one row each, f32.
; Sample: examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/reduce/reduce.asc
; Port of the CANN asc-devkit sample examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
; reduce/reduce.asc (KernelReduce<float>, reduce_custom), the path it takes for a float buffer of
; (2 KB, 16 KB]: ComputeKey = REDUCE_TILING_3, two ReduceRepeat<SUM> in counter mode. (Of the two
; candidate samples this one has the tiling struct and the multi-row sum, ReduceRepeatSumImpl's
; bsLength loop; reduce_computation/ is a single [8320] half ReduceSum on one core.)
; What it computes: z = sum(x) over a contiguous buffer; z is outLength = 32 floats, zeroed by
; Duplicate, the sum in z[0]. The sample runs one such buffer on numBlocks = 1; here x is [8, 1024]
; f32, one row (one reduce_custom buffer) per core: 8 cores, core K reduces row K into z[K, 0..31].
; Tiling: the sample's ReduceCustomTilingData {totalLength, outLength}, kernel arguments, placed in GM
; (totalLength is the per-core buffer, 1024 here, not the sample's 4096, so that x stays under 64 KB;
; 4 KB is still in ComputeKey 3's range) and read with LD to place the core's slices:
;     TILING + 0  totalLength  1024       TILING + 4  outLength  32
; vcore's count= and DMA len= are immediates, so the element counts they take are the constants
; LENGTH and OUT (equal to the tiling's), and the sample's runtime dispatch on totalLength * 4
; (ComputeKey 1..5) is resolved here to key 3, the one this length selects; keys 1, 2, 4, 5 are not
; ported.
; Steps (CopyIn, Compute3, CopyOut; TQue depth 1, so no double buffering):
;     DataCopy(xLocal, xGm, totalLength)           DMA.GM2UB 4 KB; EnQue/DeQue = MTE2 -> V event 0
;     Duplicate(zLocal, 0, outLength)              VDUP.f32 [Z], 0.0, count=32
;     SetMaskCount; SetVectorMask(0, totalLength)
;     ReduceRepeat<SUM>(tmp, xLocal, ..., 1, 1, 1, 8)   VCADD.f32 [TMP], [X], count=1024: 16 iterations
;                                                  of 64 lanes, their sums contiguous (dstrep=1)
;     PipeBarrier<PIPE_V>                          BARRIER V
;     SetVectorMask(0, repeatNum = 16)
;     ReduceRepeat<SUM>(zLocal, tmp, ...)          VCADD.f32 [Z], [TMP], count=16: z[0]
;     PipeBarrier<PIPE_V>; SetMaskNorm             BARRIER V
;     DataCopy(zGm, zLocal, outLength)             EnQue/DeQue = V -> MTE3 event 0; DMA.UB2GM 128 B
; Each VCADD is a pairwise tree rounded to f32 at every node and np.sum's order differs, so the sums
; may differ in the last bits (for this data they agree exactly).
; Data: gen/reduce.py: uniform(1, 10) f32 (the sample's uniform(1, 1) would give every row the same
; sum), golden zeros(32) with golden[0] = np.sum(row) per row, as its gen_data.py. Tolerance: the
; sample's CompareResult (EPS = 1e-4, absolute or relative) as rtol=1e-4 atol=1e-4. Valid on the a2
; too: vcore run programs/kernels/reduce.asm --cores 8 --profile a2
; Run: vcore run programs/kernels/reduce.asm --cores 8
.equ TILING, 0x9000        ; GM: the tiling struct
.equ GX, 0x0               ; GM: x, [8, 1024] f32
.equ GZ, 0x8000            ; GM: z, [8, 32] f32
.equ LENGTH, 1024          ; totalLength (elements)
.equ OUT, 32               ; outLength (elements)
.equ X, 0x0000             ; UB: xLocal, 4 KB
.equ TMP, 0x1000           ; UB: calcBuf (tempTensor1), the 16 partial sums
.equ Z, 0x2000             ; UB: zLocal, 32 f32
.gm TILING, u32, 1024, 32

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 0]              ; totalLength
    LD.u32 S3, gm[TILING + 4]              ; outLength
    MUL S4, S1, S2
    MUL S4, S4, 4                          ; x + totalLength * K floats
    MUL S5, S1, S3
    MUL S5, S5, 4                          ; z + outLength * K floats
    DMA.GM2UB [X], gm[S4 + GX], len=LENGTH * 4 / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VDUP.f32 [Z], 0.0, count=OUT
    VCADD.f32 [TMP], [X], count=LENGTH
    BARRIER V
    VCADD.f32 [Z], [TMP], count=LENGTH / 64
    BARRIER V
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S5 + GZ], [Z], len=OUT * 4 / 32
    HALT

; RUN --cores 8
; LOAD gm:0x0 = data/reduce/x.npy
; EXPECT gm:0x8000:f32:256 ~= data/reduce/golden.npy rtol=1e-4 atol=1e-4
