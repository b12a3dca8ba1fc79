; Kernel zoo: RmsNorm over rows, y = x * gamma / sqrt(mean(x^2) + eps), on 8 cores, f32, tensor instructions
; Sample: examples/01_simd_cpp_api/04_advanced_api/02_normalization/rmsnorm/rmsnorm.asc
; (asc-devkit; KernelRmsnorm<float, false>: x [4, 8, 64], gamma [64], epsilon 5e-05, y [4, 8, 64]).
; The sample runs numBlocks = 1 core on the whole [4 * 8, 64]; this port splits its 32 rows over 8
; cores, 4 rows (1 KB) a core, each core loading the whole gamma. The tiling, in GM and read with LD:
;     TILING + 0  bLength 4   +4  sLength 8   +8  hLength 64   (the sample's input_tiling.bin)
;            +12  epsilon 5e-05 (f32)   +16  reciprocalOfHLength 1/64 (f32, RmsNormTiling's field,
;                 which GetRmsNormTilingInfo computes)   +20  rows a core, bLength * sLength / 8 = 4
;                 (host-computed: vcore has no scalar divide)
; A core takes rows 4 * GetBlockIdx() .. + 3 (byte offset rows * hLength * 4 * GetBlockIdx()).
; CopyIn (x rows and gamma, MTE2 -> V event 0), Compute, CopyOut (V -> MTE3 event 0), as the sample's
; depth-1 queues: one tile a core, nothing to double-buffer.
; Compute is the A2's RmsNorm, RmsNormCompute in impl/adv_api/detail/normalization/rmsnorm/
; rmsnorm_common_impl.h, generic path (as programs/rmsnorm.asm, the one-core port), with
; PipeBarrier<PIPE_V> (BARRIER V) between dependent steps so that it also runs on a2:
;     step 1  Mul(tmp, x, x, bsh)                      -> VMUL.f32 count=256
;     step 2  RmsNormGenericReduceSum (per row)        -> VCADD.f32 repeat=4 (one sum a row)
;     step 3  Muls(reduced, reciprocalOfHLength)       -> VMULS by the tiling's f32 (an S register)
;     step 4  Adds(reduced, epsilon)                   -> VADDS by the tiling's f32
;     step 5  Ln; Muls -0.5; Exp (its "high precision" rsqrt) -> VLN, VMULS -0.5, VEXP
;     step 6+7 SetFlag/WaitFlag<V_S>, then per row Muls(tmp[row], x[row], reduced.GetValue(i), h)
;                                                      -> LD.u32 from UB, VMULS by S (rows from TILING)
;     step 8  Mul(y, tmp, gamma), src1RepStride 0      -> VMUL.f32 count=256, src1rep=0
; (The 950's own RmsNorm, rmsnorm_3510_impl.h, is a register-API kernel; this port keeps the tensor
; path, which the 950 runs as well.)
; Data: gen/rmsnorm.py (the sample's gen_data.py: uniform(-1, 1) x and gamma; golden its rms_norm in
; numpy float32, x / sqrt(mean(x^2) + eps) * gamma). Tolerance: the sample's CompareResult (an element
; fails when both its absolute and relative errors pass 1e-4) -> rtol = atol = 1e-4. The kernel's
; order of sums, and VLN / VEXP being allowed 2 ulp each (docs/semantics.md), stay far inside it: y is
; within 3 ulp (2.4e-7) of the golden on this data. The tolerance is loose enough that leaving out
; eps (5e-05 against a mean square near 0.33) would still pass; a wrong gamma stride or row fails.
; Run: vcore run programs/kernels/rmsnorm.asm --cores 8   (and --profile a2)
.equ TILING, 0x5000        ; GM: the tiling struct
.equ GX, 0x0000            ; GM: x, [4, 8, 64] f32
.equ GG, 0x2000            ; GM: gamma, 64 f32
.equ GY, 0x3000            ; GM: y
.equ ROWS, 4               ; rows a core
.equ H, 64                 ; hLength: a row is 256 bytes, one f32 iteration
.equ ROW_BYTES, H * 4
.equ X, 0x0000             ; UB: inputLocal, ROWS x H f32
.equ G, 0x0400             ; UB: gammaLocal
.equ T, 0x0800             ; UB: tmp (x * x, then x * r)
.equ R, 0x0c00             ; UB: reduced (the sums, mean + eps, then r), one f32 a row
.equ Y, 0x1000             ; UB: outputLocal
.gm TILING, u32, 4, 8, 64
.gm TILING + 12, f32, 5e-05, 0.015625
.gm TILING + 20, u32, 4

    MOV S1, BLOCKIDX
    LD.u32 S2, gm[TILING + 20]             ; rows a core
    LD.u32 S3, gm[TILING + 8]              ; hLength
    LD.u32 S4, gm[TILING + 12]             ; epsilon, its f32 bits
    LD.u32 S5, gm[TILING + 16]             ; reciprocalOfHLength
    MUL S6, S2, S3
    MUL S6, S6, 4                          ; a core's bytes
    MUL S6, S6, S1                         ; this core's rows
    ; CopyIn
    DMA.GM2UB [X], gm[S6 + GX], len=ROWS * ROW_BYTES / 32
    DMA.GM2UB [G], gm[GG], len=ROW_BYTES / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    ; Compute: RmsNorm
    VMUL.f32  [T], [X], [X], count=ROWS * H             ; step 1: x^2
    BARRIER V
    VCADD.f32 [R], [T], repeat=ROWS                     ; step 2: each row's sum
    BARRIER V
    VMULS.f32 [R], [R], S5, count=ROWS                  ; step 3: * reciprocalOfHLength
    BARRIER V
    VADDS.f32 [R], [R], S4, count=ROWS                  ; step 4: + epsilon
    BARRIER V
    VLN.f32   [R], [R], count=ROWS                      ; step 5: r = exp(-0.5 * ln(mean + eps))
    BARRIER V
    VMULS.f32 [R], [R], -0.5, count=ROWS
    BARRIER V
    VEXP.f32  [R], [R], count=ROWS
    SETFLAG V, S, 0                                     ; step 6: GetValue reads UB on S
    WAITFLAG V, S, 0
    MOV S7, 0                                           ; row i
    MOV S8, R                                           ; &reduced[i]
    MOV S9, 0                                           ; byte offset of row i
row:
    LD.u32 S10, [S8]                                    ; r[i], its f32 bits
    VMULS.f32 [S9 + T], [S9 + X], S10, count=H          ; step 7: x[row] * r[i]
    ADD S7, S7, 1
    ADD S8, S8, 4
    ADD S9, S9, ROW_BYTES
    BLT S7, S2, row
    BARRIER V
    VMUL.f32  [Y], [T], [G], count=ROWS * H, src1rep=0  ; step 8: * gamma, the same 64 floats every row
    ; CopyOut
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S6 + GY], [Y], len=ROWS * ROW_BYTES / 32
    HALT

; RUN --cores 8
; LOAD gm:0x0 = data/rmsnorm/x.npy
; LOAD gm:0x2000 = data/rmsnorm/gamma.npy
; EXPECT gm:0x3000:f32:2048 ~= data/rmsnorm/golden.npy rtol=1e-4 atol=1e-4
