; Kernel zoo: Cast half -> int32_t with CAST_CEIL, 4 cores, f16 -> s32.
; Sample: examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/cast/cast.asc
; Port of the CANN asc-devkit sample examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
; cast/cast.asc, scenario 1 (SCENARIO_NUM=1, "half to int32_t"): y = ceil(x) as int32 over x[1, 512]
; half. Scenario 0 (half -> int4b_t) is not ported: vcore has no 4-bit type.
; Cores: the sample launches numBlocks = 1 with blockLength = totalLength = 512, but its kernel already
; takes its slice at blockLength * GetBlockIdx(); here the 512 elements split naturally over 4 cores,
; blockLength = tileLength = 128 halves each (the sample's template parameters with numBlocks = 4).
; Tiling: the sample has no tiling struct (blockLength, tileLength are template parameters); as in
; add.asm, the host-side values are placed in GM and the slice length read with LD:
;     TILING + 0  totalLength  512        TILING + 4  blockLength  128
; tileLength (the Cast count, a compile-time constant in the sample) is the constant TILE.
; Steps, one tile per core as in the sample (LocalMemAllocator, no queues, no double buffering):
;     DataCopy(xLocal, xGm, tileLength)              DMA.GM2UB, 256 bytes
;     SetFlag/WaitFlag<MTE2_V>(EVENT_ID0)            SETFLAG/WAITFLAG MTE2, V, 0
;     Cast(yLocal, xLocal, CAST_CEIL, tileLength)    VCONV.s32.f16 round=ceil, count=128: 64 lanes an
;                                                    iteration (the wider s32), 2 iterations; the f16
;                                                    source covers 4 datablocks of one, so srcrep=4
;                                                    (the count-form Cast's own repeat strides)
;     SetFlag/WaitFlag<V_MTE3>(EVENT_ID0)            SETFLAG/WAITFLAG V, MTE3, 0
;     DataCopy(yGm, yLocal, tileLength)              DMA.UB2GM, 512 bytes
;     PipeBarrier<PIPE_ALL>()                        BARRIER ALL
; Data: gen/cast.py (the sample's gen_data.py scenario 1: uniform(f16 min, f16 max) half, golden
; ceil(clip(x, int32 range)) as int32). verify_result.py uses np.isclose(rtol=1e-6, atol=1e-9) on
; int32: exact here, so the EXPECT is exact (rtol=0 atol=0). Valid on the a2 too (f16 -> s32 is in both
; chips' Cast tables): vcore run programs/kernels/cast.asm --cores 4 --profile a2
; Run: vcore run programs/kernels/cast.asm --cores 4
.equ TILING, 0x2000        ; GM: the tiling struct
.equ GX, 0x0               ; GM: x, 512 f16
.equ GY, 0x1000            ; GM: y, 512 s32
.equ TILE, 128             ; tileLength (elements)
.equ X, 0x0000             ; UB: xLocal, 128 f16 = 256 bytes
.equ Y, 0x0100             ; UB: yLocal, 128 s32 = 512 bytes
.gm TILING, u32, 512, 128

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 4]              ; blockLength (elements)
    MUL S3, S1, S2                         ; blockLength * GetBlockIdx(): this core's first element
    MUL S4, S3, 2                          ; its byte offset in x (half)
    MUL S5, S3, 4                          ; and in y (int32_t)
    DMA.GM2UB [X], gm[S4 + GX], len=TILE * 2 / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VCONV.s32.f16 [Y], [X], round=ceil, count=TILE, srcrep=4
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S5 + GY], [Y], len=TILE * 4 / 32
    BARRIER ALL
    HALT

; RUN --cores 4
; LOAD gm:0x0 = data/cast/x.npy
; EXPECT gm:0x1000:s32:512 ~= data/cast/golden.npy rtol=0 atol=0
