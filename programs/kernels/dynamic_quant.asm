; Kernel zoo: per-token dynamic int8 quantization, scale = max|x * smooth| / 127, y = round(x * smooth / scale), f16 -> s8, 2 cores.
; Sample: hicann/ops-nn:quant/dynamic_quant/op_kernel/arch35/dynamic_quant_regbase_full_load.h
; Port of the public CANN operator DynamicQuant (hicann/ops-nn, quant/dynamic_quant), its 950 kernel
; DynamicQuantRegbaseFullLoad<half, int8_t, hasSmooth = true, useBufferNum, isSymmetrical = true>
; (op_kernel/arch35/dynamic_quant_regbase_full_load.h): asc-devkit has no per-token dynamic
; quantization sample; this operator is the public kernel that does it with the 950's register API.
; Each core takes rowPerHeadCore rows at blockIdx * lenHead (all cores are head cores here), copies
; them in (CopyIn: MTE2 -> V), computes (Compute -> ComputeVF), copies y and scale out (V -> MTE3).
; ComputeVF, one vector function for the multiRow rows, line by line:
;   for indexRow < multiRow:                                   LOOP S9
;     ComputeScaleVF:
;       Duplicate(vregMaxX, -inf, preg1 = ALL)                   VDUP.f32 V10, -inf, P7
;       for j < vfLoop = rowLen / 64:                            LOOP S10
;         preg0 = UpdateMask<float>(sreg0)                         PUPDATE.b32 P0, S6
;         LoadAlign<half, DIST_UNPACK_B16>(vregX, x + ...)         VLD.f16 V0, [S1], dist=unpack_b16, post=64
;         Cast<float, half>(vregRes, vregX, preg0)                 VCONV.f32.f16 V1, V0, P0
;         (smooth: the same load and cast, then Mul)               VLD.f16 ..., VCONV ..., VMUL.f32 V1, V1, V3, P0
;         Abs(vregAbs, vregInput, preg0)                           VABS.f32 V4, V1, P0
;         Max(vregMaxX, vregAbs, vregMaxX, preg1)                  VMAX.f32 V10, V4, V10, P7
;       Reduce<MAX>(vregReduceMaxX, vregMaxX, preg1)             VREDUCE.MAX.f32 V11, V10, P7
;       Muls(vregScale, vregReduceMaxX, maxValue = 1/127)        VMULS.f32 V12, V11, 0.007874015748031496, P7
;       Duplicate(vregDupScale, vregScale, preg1)                VDUP.f32 V13, V12, P7
;       StoreUnAlign(scaleAddr, vregScale, ureg0, 1)             VST.f32 [S4], V12, dist=first_b32, post=1
;     ComputeYVF:
;       for j < vfLoop:                                          LOOP S10
;         preg2 = UpdateMask<float>(sreg1)                         PUPDATE.b32 P0, S6
;         (load, cast, smooth Mul as above)                        VLD / VCONV / VLD / VCONV / VMUL
;         Div(vregYFp32, vregInput, vregDupScale, preg2)           VDIV.f32 V5, V1, V13, P0
;         Cast<int16_t, float, CAST_RINT>                          VCONV.s16.f32 V6, V5, P0, round=rint
;         Cast<half, int16_t, CAST_ROUND>                          VCONV.f16.s16 V7, V6, P0, round=round
;         Cast<int8_t, half, CAST_TRUNC>                           VCONV.s8.f16 V8, V7, P0, round=trunc
;         StoreAlign<int8_t, DIST_PACK4_B32>(addr, vregY, preg2)   VST.s8 [S3], V8, P0, dist=pack4_b32, post=64
; How the bytes move: the unpacking load puts half element i in the low 16 bits of 32-bit lane i (f16
; element 2i), which the widening VCONV reads (part 0); each narrowing VCONV writes lane i's result
; at the start of its lane (s16 element 2i, then s8 element 4i under the b32 mask, which reads f16
; lane 2i), and the pack4_b32 store writes byte 4i of the register (lane i's low byte) to UB byte i.
; Differences from the operator, and why:
; - Sizes: the operator's tiling spreads rows over up to 64 cores and loops over UB loads
;   (loopCnt, remainRow); the port runs the test's one shape, x [16, 1024], on 2 cores of 8 rows, all
;   in UB at once (loopCnt 1, remainRow 0, so Process is one LoopProcess). The fields it reads are a
;   tiling struct in GM, read with LD:
;       TILING + 0  coreNum 2           + 4  headCoreNum 2      + 8  rowPerHeadCore 8
;       TILING + 12 rowLen 1024         + 16 multiRowNum 8
;   rowLen is a multiple of 64, so the row has no tail (tailNum = 64); DataCopyPad moves whole rows.
; - StoreUnAlign of the scale: vcore has no unaligned store; the first_b32 store writes lane 0 (4
;   bytes, 4-byte aligned) and advances by one float, which is what StoreUnAlign(..., 1) with
;   POST_MODE_UPDATE does for one element.
; - SetFloatOverflowModeForRegbase is not modelled (no value here overflows).
; Data: gen/dynamic_quant.py (the operator's test case and its kernel golden: x, smooth uniform(-2, 2)
; f16; scale = max|x smooth| * (1/127) in f32, y = round(x smooth / scale) int8). The same f32 steps,
; each correctly rounded, so y and scale are compared exactly (the test allows 1e-4).
; Run: vcore run programs/kernels/dynamic_quant.asm --cores 2
.equ GX, 0x0000            ; GM: x, [16, 1024] f16
.equ GSMOOTH, 0x8000       ; GM: smooth_scales, [1024] f16
.equ GY, 0x9000            ; GM: y, [16, 1024] s8
.equ GSCALE, 0xD000        ; GM: scale, [16] f32
.equ TILING, 0xD100        ; GM: the tiling struct
.equ ROW_LEN, 1024         ; rowLen (elements)
.equ ROWS, 8               ; rowPerHeadCore = multiRowNum (a DMA's len= is a constant)
.equ X, 0x0000             ; UB: inQueue, ROWS x ROW_LEN f16 (16 KB)
.equ SMOOTH, 0x4000        ; UB: smoothQueue, ROW_LEN f16
.equ Y, 0x4800             ; UB: outQueue, ROWS x ROW_LEN s8
.equ SCALE, 0x6800         ; UB: scaleQueue, ROWS f32
.equ VL, 64                ; floats a register (VECTOR_REG_WIDTH / sizeof(float))
.gm TILING, u32, 2, 2, ROWS, ROW_LEN, ROWS

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 0]              ; coreNum
    BGE S1, S2, done                       ; if (blockIdx >= coreNum) return
    LD.u32 S2, gm[TILING + 8]              ; rowPerHeadCore
    LD.u32 S11, gm[TILING + 12]            ; rowLen
    LD.u32 S9, gm[TILING + 16]             ; multiRowNum
    MUL S12, S1, S2                        ; baseRow = blockIdx * rowPerHeadCore
    MUL S13, S12, S11                      ; lenHead * blockIdx (elements)
    SHL S14, S13, 1                        ; ... in bytes of x
    SHL S15, S12, 2                        ; ... and of scale
    ; CopyIn
    DMA.GM2UB [X], gm[S14 + GX], len=ROWS * ROW_LEN * 2 / 32
    DMA.GM2UB [SMOOTH], gm[GSMOOTH], len=ROW_LEN * 2 / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    ; Compute: ComputeVF(xAddr, smoothAddr, yAddr, scaleAddr, offsetAddr, multiRow)
    ADD S10, S11, VL - 1
    SHR S10, S10, 6                        ; vfLoop = (sizeHalfLen + VL - 1) / VL
    MOV S1, X                              ; ComputeScaleVF's walk through the rows
    MOV S2, X                              ; ComputeYVF's
    MOV S3, Y
    MOV S4, SCALE
    VF.BEGIN
        PSET.b32 P7, ALL                   ; preg1 = CreateMask<float, ALL>
        LOOP S9                            ; indexRow
            VDUP.f32 V10, -inf, P7         ; vregMaxX
            MOV S5, SMOOTH
            MOV S6, S11                    ; sreg0 = rowCount
            LOOP S10
                PUPDATE.b32 P0, S6
                VLD.f16 V0, [S1], dist=unpack_b16, post=VL
                VCONV.f32.f16 V1, V0, P0
                VLD.f16 V2, [S5], dist=unpack_b16, post=VL
                VCONV.f32.f16 V3, V2, P0
                VMUL.f32 V1, V1, V3, P0    ; input = x * smooth
                VABS.f32 V4, V1, P0
                VMAX.f32 V10, V4, V10, P7
            ENDLOOP
            VREDUCE.MAX.f32 V11, V10, P7   ; row max of |input| in lane 0
            VMULS.f32 V12, V11, 0.007874015748031496, P7   ; scale = max * (1 / 127)
            VDUP.f32 V13, V12, P7          ; vregDupScale: lane 0 everywhere
            VST.f32 [S4], V12, dist=first_b32, post=1      ; scale[indexRow]
            MOV S5, SMOOTH
            MOV S6, S11                    ; sreg1
            LOOP S10
                PUPDATE.b32 P0, S6
                VLD.f16 V0, [S2], dist=unpack_b16, post=VL
                VCONV.f32.f16 V1, V0, P0
                VLD.f16 V2, [S5], dist=unpack_b16, post=VL
                VCONV.f32.f16 V3, V2, P0
                VMUL.f32 V1, V1, V3, P0
                VDIV.f32 V5, V1, V13, P0   ; input / scale
                VCONV.s16.f32 V6, V5, P0, round=rint
                VCONV.f16.s16 V7, V6, P0, round=round
                VCONV.s8.f16 V8, V7, P0, round=trunc
                VST.s8 [S3], V8, P0, dist=pack4_b32, post=VL   ; 64 int8 of the row
            ENDLOOP
        ENDLOOP
    VF.END
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    ; CopyOut
    SHR S16, S14, 1                        ; the row offset in bytes of y (one byte an element)
    DMA.UB2GM gm[S16 + GY], [Y], len=ROWS * ROW_LEN / 32
    DMA.UB2GM gm[S15 + GSCALE], [SCALE], len=ROWS * 4 / 32
done:
    HALT

; RUN --cores 2
; LOAD gm:0x0 = data/dynamic_quant/x.npy
; LOAD gm:0x8000 = data/dynamic_quant/smooth.npy
; EXPECT gm:0x9000:s8:16384 ~= data/dynamic_quant/golden_y.npy rtol=0 atol=0
; EXPECT gm:0xd000:f32:16 ~= data/dynamic_quant/golden_scale.npy rtol=0 atol=0
