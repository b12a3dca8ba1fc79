; Kernel zoo: rotary position embedding, interleaved, out = x cos + rotate_interleaved(x) sin, f32, 4 cores.
; Sample: hicann/ops-transformer:posembedding/apply_rotary_pos_emb/op_kernel/arch35/apply_rotary_pos_emb_common.h
; Port of the public CANN operator ApplyRotaryPosEmb (ops-transformer, posembedding/
; apply_rotary_pos_emb), its 950 vector function InterleaveModeVF<float> (op_kernel/arch35/
; apply_rotary_pos_emb_common.h): asc-devkit has no rotary embedding sample; this operator is the
; public kernel that computes it with the 950's register API. For each position s of the core's
; slice and each head (currDNum heads), D = 128 floats are two registers, loopNum = 1:
;     pregLoop = CreateMask<float, ALL>                     PSET.b32 P0, ALL
;     for sIdx < currSNum:                                  LOOP S13
;       for idxD < currDNum:                                  LOOP S14
;         LoadAlign formerIn, latterIn (x, two registers)       VLD.f32 V0, [S1], post=64 (and V1)
;         LoadAlign formerCos, latterCos                        VLD.f32 V2, V3 from [S5]
;         LoadAlign formerSin, latterSin                        VLD.f32 V4, V5 from [S6]
;         Mul(formerCos, formerCos, formerIn)                   VMUL.f32 V2, V2, V0, P0
;         Mul(latterCos, latterCos, latterIn)                   VMUL.f32 V3, V3, V1, P0
;         DeInterleave<float>(even, odd, formerIn, latterIn)    VDINTLV.f32 V6, V7, V0, V1
;         Muls(odd, odd, -1.0)                                  VMULS.f32 V7, V7, -1.0, P0
;         Interleave<float>(formerIn, latterIn, odd, even)      VINTLV.f32 V0, V1, V7, V6
;         Mul(formerSin, formerSin, formerIn)                   VMUL.f32 V4, V4, V0, P0
;         Add(formerCos, formerCos, formerSin)                  VADD.f32 V2, V2, V4, P0
;         Mul(latterSin, latterSin, latterIn); Add(...)         VMUL.f32 V5 ...; VADD.f32 V3 ...
;         StoreAlign formerCos, latterCos (out)                 VST.f32 [S3], V2 / V3, P0, post=64
; The de-interleave splits the 128 floats of a head into its even and odd elements (x0 x2 ... and
; x1 x3 ...); the odd ones are negated and interleaved back in the other order, which gives
; -x1 x0 -x3 x2 ..., the interleaved rotation. cos and sin of position s serve every head (layout
; BSND, cos and sin [B, S, 1, D]), so their pointers restart for each head.
; The function runs once for q (N = 4 heads) and once for k (Nk = 1), as the operator does.
; Differences from the operator, and why:
; - Tiling: the operator's tiling templates (ab, aba, bab) split B * S over cores and UB loads; the
;   port takes one shape, B = 1, S = 16, N = 4, Nk = 1, D = 128, on 4 cores of 4 positions each,
;   all in UB at once (one CopyIn, compute, CopyOut; MTE2 -> V and V -> MTE3, event 0). The fields it
;   uses are a tiling struct in GM, read with LD:
;       TILING + 0  S 16     + 4  N 4     + 8  Nk 1     + 12  D 128     + 16  positions a core 4
;   D = 128 is two registers with no tail, so the function's tail loops (tailTwoVL, tailOneVL) run 0
;   times and are left out; dAlignLen = D.
; Data: gen/rope.py (the operator's kernel-test gen_data.py for float32: q uniform(-2, 2), k uniform(-3,
; 2), cos uniform(-3, 4), sin uniform(-4, 5); golden its interleaved formula in f32). The kernel's
; products and sums are the golden's, each rounded once, so the comparison is exact.
; Run: vcore run programs/kernels/rope.asm --cores 4
.equ GQ, 0x00000           ; GM: q, [1, 16, 4, 128] f32
.equ GK, 0x08000           ; GM: k, [1, 16, 1, 128]
.equ GCOS, 0x0A000         ; GM: cos, [1, 16, 1, 128]
.equ GSIN, 0x0C000         ; GM: sin
.equ GQOUT, 0x0E000        ; GM: qOut
.equ GKOUT, 0x16000        ; GM: kOut
.equ TILING, 0x18000       ; GM: the tiling struct
.equ D, 128                ; head size (floats)
.equ ROW_BYTES, D * 4
.equ S_CORE, 4             ; positions a core (a DMA's len= is a constant)
.equ N, 4                  ; q heads
.equ NK, 1                 ; k heads
.equ Q, 0x0000             ; UB: q slice, S_CORE x N x D f32 (8 KB)
.equ K, 0x2000             ; UB: k slice (2 KB)
.equ COS, 0x2800           ; UB: cos slice (2 KB)
.equ SIN, 0x3000           ; UB: sin slice (2 KB)
.equ QOUT, 0x3800          ; UB: qOut (8 KB)
.equ KOUT, 0x5800          ; UB: kOut (2 KB)
.gm TILING, u32, 16, N, NK, D, S_CORE

; InterleaveModeVF(sin, cos, in, out, dLen, currSNum = S13, currDNum = S14), in at S1, out at S3
.macro INTERLEAVE_VF
    VF.BEGIN
        PSET.b32 P0, ALL                   ; pregLoop
        MOV S7, COS                        ; currCosUb for sIdx = 0
        LOOP S13                           ; sIdx
            LOOP S14                       ; idxD (heads)
                MOV S5, S7                 ; cos of this position
                ADD S6, S7, SIN - COS      ; sin of this position
                VLD.f32 V0, [S1], post=64  ; formerIn
                VLD.f32 V1, [S1], post=64  ; latterIn
                VLD.f32 V2, [S5], post=64  ; formerCos
                VLD.f32 V3, [S5], post=64  ; latterCos
                VLD.f32 V4, [S6], post=64  ; formerSin
                VLD.f32 V5, [S6], post=64  ; latterSin
                VMUL.f32 V2, V2, V0, P0
                VMUL.f32 V3, V3, V1, P0
                VDINTLV.f32 V6, V7, V0, V1 ; even, odd elements of the head
                VMULS.f32 V7, V7, -1.0, P0
                VINTLV.f32 V0, V1, V7, V6  ; -x1 x0 -x3 x2 ...
                VMUL.f32 V4, V4, V0, P0
                VADD.f32 V2, V2, V4, P0
                VMUL.f32 V5, V5, V1, P0
                VADD.f32 V3, V3, V5, P0
                VST.f32 [S3], V2, P0, post=64
                VST.f32 [S3], V3, P0, post=64
            ENDLOOP
            ADD S7, S7, ROW_BYTES          ; the next position's cos (dAlignLen floats on)
        ENDLOOP
    VF.END
.endm

    MOV S1, BLOCKIDX
    LD.u32 S13, gm[TILING + 16]            ; positions a core (currSNum)
    LD.u32 S2, gm[TILING + 4]              ; N
    LD.u32 S15, gm[TILING + 8]             ; Nk
    MUL S4, S1, S13                        ; the core's first position
    MUL S8, S4, ROW_BYTES                  ; ... its byte offset in cos, sin (and k: Nk = 1)
    MUL S9, S8, S2                         ; ... in q (N heads a position)
    MUL S10, S8, S15                       ; ... in k (Nk heads)
    ; CopyIn
    DMA.GM2UB [Q], gm[S9 + GQ], len=S_CORE * N * ROW_BYTES / 32
    DMA.GM2UB [K], gm[S10 + GK], len=S_CORE * NK * ROW_BYTES / 32
    DMA.GM2UB [COS], gm[S8 + GCOS], len=S_CORE * ROW_BYTES / 32
    DMA.GM2UB [SIN], gm[S8 + GSIN], len=S_CORE * ROW_BYTES / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    ; Compute: q, then k
    MOV S1, Q
    MOV S3, QOUT
    MOV S14, S2                            ; currDNum = N
    INTERLEAVE_VF
    MOV S1, K
    MOV S3, KOUT
    MOV S14, S15                           ; currDNum = Nk
    INTERLEAVE_VF
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    ; CopyOut
    DMA.UB2GM gm[S9 + GQOUT], [QOUT], len=S_CORE * N * ROW_BYTES / 32
    DMA.UB2GM gm[S10 + GKOUT], [KOUT], len=S_CORE * NK * ROW_BYTES / 32
    HALT

; RUN --cores 4
; LOAD gm:0x0 = data/rope/q.npy
; LOAD gm:0x8000 = data/rope/k.npy
; LOAD gm:0xa000 = data/rope/cos.npy
; LOAD gm:0xc000 = data/rope/sin.npy
; EXPECT gm:0xe000:f32:8192 ~= data/rope/golden_q.npy rtol=0 atol=0
; EXPECT gm:0x16000:f32:2048 ~= data/rope/golden_k.npy rtol=0 atol=0
