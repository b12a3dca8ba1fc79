; Kernel zoo: LayerNorm over rows, y = gamma * (x - mean) / sqrt(var + eps) + beta, on 8 cores, f32
; Sample: examples/01_simd_cpp_api/04_advanced_api/02_normalization/layernorm/layernorm.asc
; (asc-devkit; its forward part, KernelLayerNorm: AscendC::LayerNorm<float, false>(y, mean, var, x,
; gamma, beta, epsilon, tiling) on x [2, 32, 16], gamma, beta [16], epsilon 0.0001 from the tiling;
; outputs y [2, 32, 16], mean and variance [2, 32]), in tensor instructions. The sample goes on with LayerNormGrad and LayerNormGradBeta (dy, pd_x, pd_gamma,
; pd_beta); those are not ported here. The sample runs NUM_BLOCKS = 1 core on all bsLength = 64 rows;
; this port splits them over 8 cores, 8 rows (512 bytes) a core, each loading gamma and beta whole.
; The tiling, in GM and read with LD:
;     TILING + 0  bLength 2   +4  sLength 32   +8  hLength 16       (LayerNormTiling's fields)
;            +12  lastDimValueBack 1/16 (f32)  +16  epsilon 0.0001 (f32, LayerNormTilingData.epsilon)
;            +20  bsCurLength a core, 64 / 8 = 8 (host-computed: vcore has no scalar divide)
; A core takes rows 8 * GetBlockIdx() .. + 7 of x and y, and 8 floats (one datablock) of mean and var.
; CopyIn (x, gamma, beta: MTE2 -> V event 0), Compute, CopyOut (V -> MTE3 event 0): the sample's
; depth-1 queues, one tile a core.
; Compute is the A2's LayerNorm (impl/adv_api/detail/normalization/layernorm/layernorm_common_impl.h
; and layernorm_common_basic_impl.h), in counter mode over bshCurLength = 128 floats, with
; PipeBarrier<PIPE_V> (BARRIER V) between dependent steps so that it also runs on a2:
;   GetLayerNormOutputMean      Muls(C, x, lastDimValueBack)  -> VMULS.f32 count=128 by the tiling's f32
;                               LayerNormReduceSumImpl: hLength 16 <= 64, so WholeReduceSum of each row
;                                 (mask 16, srcRepStride 2)   -> VCADD.f32 repeat=8, srcrep=2, mask=16
;   GetLayerNormOutputVariance  BroadcastLastDim(C, mean)     -> two VBRCB, dstblk=2 (even, odd blocks):
;                                 row i's mean fills its 16 lanes (the sample's SetCmpMask + Select trick)
;                               Sub(B, x, C); Mul(C, B, B); Muls(A, C, 1/h); WholeReduceSum -> var
;   GetLayerNormOutputPre       BroadcastLastDim(A, var); Adds(C, A, eps); Sqrt(A, C);
;                               Duplicate(C, 1, 8 floats); Div(A, C, A) with src0 strides 0 (1 / sqrt);
;                               Mul(C, A, B)                  -> VADDS, VSQRT, VDUP, VDIV src0blk=0
;                                                                src0rep=0, VMUL
;   GetLayerNormOutput<float>   DuplicateMulImpl / DuplicateAddImpl: per row Mul(., ., gamma) then
;                               Add(., ., beta) over hLength  -> one VMUL and one VADD each, mask=16,
;                                 repeat=8 rows, dstrep/src0rep=2, src1rep=0 (the same 16 floats)
; Data: gen/layernorm.py (the sample's gen_data.py: uniform(-100, 100) x, gamma, beta; golden its
; numpy float32 forward: mean, variance, gamma * (x - mean) * (1 / sqrt(var + eps)) + beta). The
; sample's CompareResult fails an element when both its absolute and relative errors pass 1e-4, for
; y, mean and var: rtol = atol = 1e-4 on all three (the kernel's sums run in another order than numpy's;
; sqrt and div are correctly rounded in vcore, as in numpy).
; Run: vcore run programs/kernels/layernorm.asm --cores 8   (and --profile a2)
.equ TILING, 0x3200        ; GM: the tiling struct
.equ GX, 0x0000            ; GM: x, [2, 32, 16] f32
.equ GG, 0x1000            ; GM: gamma, 16 f32
.equ GB, 0x1040            ; GM: beta, 16 f32
.equ GY, 0x2000            ; GM: y
.equ GMEAN, 0x3000         ; GM: mean, 64 f32
.equ GVAR, 0x3100          ; GM: variance, 64 f32
.equ ROWS, 8               ; bsCurLength a core
.equ H, 16                 ; hLength: a row is 64 bytes, 2 datablocks
.equ ROW_BLOCKS, H * 4 / 32
.equ N, ROWS * H           ; bshCurLength
.equ X, 0x0000             ; UB: xLocal, ROWS x H f32
.equ G, 0x0200             ; UB: gammaLocal
.equ BETA, 0x0240          ; UB: betaLocal
.equ A, 0x0400             ; UB: tempTensorA
.equ B, 0x0600             ; UB: tempTensorB (x - mean)
.equ C, 0x0800             ; UB: tempTensorC
.equ MEAN, 0x0a00          ; UB: meanLocal, 8 f32
.equ VAR, 0x0a20           ; UB: varLocal, 8 f32
.equ Y, 0x0c00             ; UB: yLocal
.gm TILING, u32, 2, 32, 16
.gm TILING + 12, f32, 0.0625, 0.0001
.gm TILING + 20, u32, 8

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 20]             ; bsCurLength: rows a core
    LD.u32 S3, gm[TILING + 8]              ; hLength
    LD.u32 S4, gm[TILING + 12]             ; lastDimValueBack, its f32 bits
    LD.u32 S5, gm[TILING + 16]             ; epsilon
    MUL S6, S2, S3
    MUL S6, S6, 4                          ; a core's bytes of x and y
    MUL S6, S6, S1                         ; this core's rows
    MUL S7, S2, 4                          ; a core's bytes of mean and var
    MUL S7, S7, S1
    ; CopyIn
    DMA.GM2UB [X], gm[S6 + GX], len=ROWS * ROW_BLOCKS
    DMA.GM2UB [G], gm[GG], len=ROW_BLOCKS
    DMA.GM2UB [BETA], gm[GB], len=ROW_BLOCKS
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    ; Compute: LayerNorm. The mean
    VMULS.f32 [C], [X], S4, count=N                     ; x * (1 / h)
    BARRIER V
    VCADD.f32 [MEAN], [C], repeat=ROWS, srcrep=ROW_BLOCKS, mask=H
    BARRIER V
    ; the variance
    VBRCB.f32 [C], [MEAN], repeat=1, dstblk=2           ; BroadcastLastDim: blocks 0, 2, .., 14
    VBRCB.f32 [C + 32], [MEAN], repeat=1, dstblk=2      ;                   blocks 1, 3, .., 15
    BARRIER V
    VSUB.f32  [B], [X], [C], count=N                    ; x - mean
    BARRIER V
    VMUL.f32  [C], [B], [B], count=N
    BARRIER V
    VMULS.f32 [A], [C], S4, count=N
    BARRIER V
    VCADD.f32 [VAR], [A], repeat=ROWS, srcrep=ROW_BLOCKS, mask=H
    BARRIER V
    ; (x - mean) / sqrt(var + eps)
    VBRCB.f32 [A], [VAR], repeat=1, dstblk=2
    VBRCB.f32 [A + 32], [VAR], repeat=1, dstblk=2
    BARRIER V
    VADDS.f32 [C], [A], S5, count=N                     ; var + eps
    BARRIER V
    VSQRT.f32 [A], [C], count=N
    BARRIER V
    VDUP.f32  [C], 1.0, count=8                         ; Duplicate(C, 1) over one datablock
    BARRIER V
    VDIV.f32  [A], [C], [A], count=N, src0blk=0, src0rep=0   ; 1 / sqrt(var + eps)
    BARRIER V
    VMUL.f32  [C], [A], [B], count=N                    ; inputY = rstd * (x - mean)
    BARRIER V
    ; y = gamma * inputY + beta
    VMUL.f32  [A], [C], [G], repeat=ROWS, dstrep=ROW_BLOCKS, src0rep=ROW_BLOCKS, src1rep=0, mask=H
    BARRIER V
    VADD.f32  [Y], [A], [BETA], repeat=ROWS, dstrep=ROW_BLOCKS, src0rep=ROW_BLOCKS, src1rep=0, mask=H
    ; CopyOut
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S6 + GY], [Y], len=ROWS * ROW_BLOCKS
    DMA.UB2GM gm[S7 + GMEAN], [MEAN], len=ROWS * 4 / 32
    DMA.UB2GM gm[S7 + GVAR], [VAR], len=ROWS * 4 / 32
    HALT

; RUN --cores 8
; LOAD gm:0x0 = data/layernorm/x.npy
; LOAD gm:0x1000 = data/layernorm/gamma.npy
; LOAD gm:0x1040 = data/layernorm/beta.npy
; EXPECT gm:0x2000:f32:1024 ~= data/layernorm/golden_y.npy rtol=1e-4 atol=1e-4
; EXPECT gm:0x3000:f32:64 ~= data/layernorm/golden_mean.npy rtol=1e-4 atol=1e-4
; EXPECT gm:0x3100:f32:64 ~= data/layernorm/golden_var.npy rtol=1e-4 atol=1e-4
