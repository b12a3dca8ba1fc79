; Kernel zoo: softmax over rows, y = exp(x - max) / sum(exp(x - max)), on 8 cores, f32, tensor instructions
; Sample: examples/01_simd_cpp_api/04_advanced_api/01_activation/softmax/softmax.asc
; (asc-devkit; KernelSoftmax: AscendC::SoftMax<float, false> then AdjustSoftMaxRes) on x [32, 32] f32,
; writing y [32, 32], max [32, 8] and sum [32, 8] (each row's max and sum in one 8-float datablock).
; The sample launches USED_CORE_NUM = 1 core; its tiling splits rows over cores, so this port runs it
; on 8 cores (the shape splits naturally: 4 rows a core), with the tiling the sample's ComputeTiling
; gives for rowNum = 32, colNum = 32, coreNum = 8, placed in GM as its SoftmaxCustomTilingData words:
;     TILING + 0  columnLength 32          +4  rowLength 32           +8  sharedTmpBufferSize 0 (*)
;            +12  usedNumBlocks 8          +16 coreRowNum 4           +20 tailCoreRowNum 0
;            +24  singleLoopCoreRowNum 64  +28 singleCoreLoopCount 0  +32 singleCoreLoopTail 4
;            +36  tailCoreSingleLoopCoreRowNum 64  +40 tailCoreSingleCoreLoopCount 0
;            +44  tailCoreSingleCoreLoopTail 4
; (*) GetSoftMaxMinTmpSize's work size and the SoftMaxTiling sub-struct are the API's own business:
; the port's work buffers are fixed UB addresses, so they are left out (0).
; Each core, as Init/Process do: returns when GetBlockIdx() > usedNumBlocks; the core with index
; usedNumBlocks (none here) takes the tail-core loop fields; offset1 = coreRowNum * columnLength *
; GetBlockIdx() floats into x and y, offset2 = coreRowNum * 8 * GetBlockIdx() into max and sum.
; Process runs singleCoreLoopCount tiles of singleLoopCoreRowNum (64) rows, then one of leftRow rows.
; For this shape the first loop runs 0 times, so the port keeps only the leftRow step (4 rows, the
; repeat=4 of the tensor instructions: vcore's repeat= is an assembly constant), at progress
; singleCoreLoopCount * tileLength as the sample's CopyIn does, skipped when leftRow is 0.
; One tile a core, so the sample's BUFFER_NUM = 2 queue has nothing to overlap: CopyIn (MTE2 -> V,
; event 0), Compute, CopyOut (V -> MTE3, event 0).
; Compute: rows % 8 != 0, so SoftMax takes its generic path, SoftMaxGenericNDImpl
; (impl/adv_api/detail/activation/softmax/membase/common/softmax_impl/softmax_generic_nd_impl.h),
; with PipeBarrier<PIPE_V> (BARRIER V) between dependent steps; in place on xLocal as the sample:
;     NewReduceMaxLastNDImpl  -> VCMAX.f32 order=v, mask=32 (one row), srcrep=4 (a row is 4 blocks)
;                                then VBRCB: row i's max fills datablock i of BMAX (the [rows, 8] max)
;     GenericSubNDImpl        -> VSUB, src1blk=0, src1rep=1: every block of row i reads BMAX block i
;     Exp                     -> VEXP count=128
;     NewReduceSumLastNDImpl  -> VCADD.f32 mask=32, srcrep=4, then VBRCB into BSUM (the [rows, 8] sum)
;     GenericDivNDImpl (A2)   -> VDIV, src1blk=0, src1rep=1
; AdjustSoftMaxResNDImpl: SetFlag/WaitFlag<V_S>, then per row maxTensor.GetValue(j * 8) on the scalar
; unit, its bits compared with 0xFF7FFFFF, and Duplicate(0.0) over the row when equal -> SETFLAG V, S
; / WAITFLAG V, S, LD.u32, BNE, VDUP.f32 count=32 (never taken on this data).
; All tensor instructions: the same program runs on the 950 and on a2.
; Data: gen/softmax.py (the sample's gen_data.py: x = uniform(-1, 1, [32, 32]) f32; golden its
; softmax_py_float + adjust_softmax_res in numpy float32). The sample's CompareResult fails an element
; when both its absolute and relative errors pass 1e-4: here rtol = atol = 1e-4 on y, and on the sum
; (numpy's sum order differs from VCADD's tree; VEXP may be 2 ulp off: both far inside 1e-4); the max
; is exact (= bit for bit).
; Run: vcore run programs/kernels/softmax.asm --cores 8   (and --profile a2)
.equ TILING, 0x3000        ; GM: the tiling struct (12 u32)
.equ GX,   0x0000          ; GM: x, [32, 32] f32
.equ GY,   0x1000          ; GM: y
.equ GMAX, 0x2000          ; GM: max, [32, 8] f32
.equ GSUM, 0x2400          ; GM: sum, [32, 8] f32
.equ ROWS, 4               ; rows of the tile (leftRow)
.equ COLS, 32              ; columnLength: a row is 128 bytes, 4 datablocks
.equ ROW_BLOCKS, COLS * 4 / 32
.equ X,    0x0000          ; UB: xLocal (x, then x - max, exp, y), ROWS x COLS f32
.equ RMAX, 0x0400          ; UB: the row maxima, one f32 each
.equ BMAX, 0x0500          ; UB: maxLocal, block i = 8 copies of RMAX[i] (VBRCB writes 8 blocks)
.equ RSUM, 0x0600          ; UB: the row sums
.equ BSUM, 0x0700          ; UB: sumLocal
.equ ADJUST_FROM, 0xFF7FFFFF
.gm TILING, u32, 32, 32, 0, 8, 4, 0, 64, 0, 4, 64, 0, 4

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 12]             ; usedNumBlocks
    BLT S2, S1, done                       ; GetBlockIdx() > usedNumBlocks: nothing to do
    LD.u32 S3, gm[TILING + 16]             ; coreRowNum
    LD.u32 S4, gm[TILING + 0]              ; columnLength
    LD.u32 S10, gm[TILING + 24]            ; singleLoopCoreRowNum
    LD.u32 S11, gm[TILING + 28]            ; singleCoreLoopCount
    LD.u32 S12, gm[TILING + 32]            ; leftRow = singleCoreLoopTail
    BNE S1, S2, sliced                     ; the tail core (index usedNumBlocks) takes its own fields
    LD.u32 S10, gm[TILING + 36]
    LD.u32 S11, gm[TILING + 40]
    LD.u32 S12, gm[TILING + 44]
sliced:
    MUL S5, S3, S4
    MUL S5, S5, 4                          ; blockLength in bytes
    MUL S5, S5, S1                         ; offset1: this core's rows of x and y
    MUL S6, S3, 32                         ; msLength in bytes (8 floats a row)
    MUL S6, S6, S1                         ; offset2: this core's rows of max and sum
    MUL S7, S10, S4
    MUL S7, S7, 4                          ; tileLength in bytes
    MUL S7, S7, S11                        ; progress = singleCoreLoopCount tiles in
    ADD S5, S5, S7
    MUL S8, S10, 32                        ; msTileLength in bytes
    MUL S8, S8, S11
    ADD S6, S6, S8
    BEQ S12, 0, done                       ; no tail rows
    ; CopyIn
    DMA.GM2UB [X], gm[S5 + GX], len=ROWS * ROW_BLOCKS
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    ; Compute: SoftMax
    VCMAX.f32 [RMAX], [X], repeat=ROWS, srcrep=ROW_BLOCKS, mask=COLS, order=v
    BARRIER V
    VBRCB.f32 [BMAX], [RMAX], repeat=1
    BARRIER V
    VSUB.f32  [X], [X], [BMAX], repeat=ROWS, dstrep=ROW_BLOCKS, src0rep=ROW_BLOCKS, src1blk=0, src1rep=1, mask=COLS
    BARRIER V
    VEXP.f32  [X], [X], count=ROWS * COLS
    BARRIER V
    VCADD.f32 [RSUM], [X], repeat=ROWS, srcrep=ROW_BLOCKS, mask=COLS
    BARRIER V
    VBRCB.f32 [BSUM], [RSUM], repeat=1
    BARRIER V
    VDIV.f32  [X], [X], [BSUM], repeat=ROWS, dstrep=ROW_BLOCKS, src0rep=ROW_BLOCKS, src1blk=0, src1rep=1, mask=COLS
    ; AdjustSoftMaxRes: the scalar unit reads each row's max
    SETFLAG V, S, 0
    WAITFLAG V, S, 0
    MOV S13, 0                             ; row j
    MOV S14, BMAX                          ; &maxLocal[j * 8]
    MOV S15, X                             ; &xLocal[j * columnLength]
    MOV S17, ADJUST_FROM                   ; (a branch's immediate is 26 bits)
adjust:
    LD.u32 S16, [S14]
    BNE S16, S17, kept
    VDUP.f32 [S15], 0.0, count=COLS        ; Duplicate(to = 0.0) over the row
kept:
    ADD S13, S13, 1
    ADD S14, S14, 32
    ADD S15, S15, COLS * 4
    BLT S13, S12, adjust
    ; CopyOut
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S5 + GY], [X], len=ROWS * ROW_BLOCKS
    DMA.UB2GM gm[S6 + GMAX], [BMAX], len=ROWS
    DMA.UB2GM gm[S6 + GSUM], [BSUM], len=ROWS
done:
    HALT

; RUN --cores 8
; LOAD gm:0x0 = data/softmax/x.npy
; EXPECT gm:0x1000:f32:1024 ~= data/softmax/golden.npy rtol=1e-4 atol=1e-4
; EXPECT gm:0x2000:f32:256 ~= data/softmax/golden_max.npy rtol=0 atol=0
; EXPECT gm:0x2400:f32:256 ~= data/softmax/golden_sum.npy rtol=1e-4 atol=1e-4
