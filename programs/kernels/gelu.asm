; Kernel zoo: GELU as a vector function, y = x / (1 + exp(-1.595769 x - 0.071405 x^3)), f32, 2 cores.
; Sample: examples/01_simd_cpp_api/00_introduction/04_reg_compute/gelu/gelu.asc
; Port of the CANN asc-devkit sample examples/01_simd_cpp_api/00_introduction/04_reg_compute/gelu/gelu.asc
; (gelu_custom with GeluVfMethod2): the sigmoid form of the tanh GELU approximation,
; 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) = x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3))),
; with the sample's own constants COEFF_LINEAR = -1.595769 (= -2 sqrt(2/pi)) and COEFF_CUBIC =
; -0.071405 (kept as the sample has it; -2 sqrt(2/pi) * 0.044715 would be -0.071355).
; Shapes: x, y are [256, 32] float (8192); numBlocks = 2 cores split along M, core K taking the
; singleCoreLength = 4096 contiguous floats at 4096 K (MOV S1, BLOCKIDX), all in UB at once.
; The sample's steps, and this port's:
;     DataCopy(xLocal, xGm[0], 4096)              DMA.GM2UB [X], gm[S5 + GX], len=512 (16 KB)
;     SetFlag/WaitFlag<MTE2_V>(EVENT_ID0)          SETFLAG MTE2, V, 0 / WAITFLAG MTE2, V, 0
;     asc_vf_call<GeluVfMethod2>(x, y, 4096, loopNum = DivCeil(4096, 64) = 64):
;       for i < loopNum:                           LOOP S6
;         mask = UpdateMask<float>(count)            PUPDATE.b32 P0, S5
;         LoadAlign(xReg, xAddr + i * 64)            VLD.f32 V0, [S1], post=64
;         Mul(y, x, x); Mul(y, y, x)                 VMUL.f32 x2 VMUL.f32: x^3
;         Muls(y, y, COEFF_CUBIC)                    VMULS.f32 V1, V1, -0.071405, P0
;         Muls(tmp, x, COEFF_LINEAR)                 VMULS.f32 V2, V0, -1.595769, P0
;         Add(y, tmp, y)                             VADD.f32 V1, V2, V1, P0
;         Exp(y, y); Adds(y, y, 1.0f)                VEXP.f32, VADDS.f32 ..., 1.0
;         Div(y, x, y)                               VDIV.f32 V1, V0, V1, P0
;         StoreAlign(yAddr + i * 64, y, mask)        VST.f32 [S2], V1, P0, post=64
;     SetFlag/WaitFlag<V_MTE3>(EVENT_ID0)          SETFLAG V, MTE3, 0 / WAITFLAG V, MTE3, 0
;     DataCopy(yGm[0], yLocal, 4096)               DMA.UB2GM gm[S5 + GY], [Y], len=512
; Differences: LoadAlign / StoreAlign at xAddr + i * oneRepeatSize become post-incremented VLD / VST
; (the same addresses). No tiling struct: the sample has no runtime tiling (singleCoreLength is a
; template parameter, numBlocks and the shape constexpr in main), so they are .equ constants; the
; function's count and loopNum arguments are set in S5, S6 before the launch, as asc_vf_call passes
; them. Numerics: VEXP is within 2 ulp, VDIV correctly rounded; the sample's hardware Exp/Div are
; approximations too, hence its tolerance.
; Data: gen/gelu.py (the sample's gen_data.py: x = uniform(-10, 10, [256, 32]) f32, golden =
; x / (1 + np.exp(COEFF_LINEAR * x + COEFF_CUBIC * x**3)) in f32); tolerance of its verify_result.py:
; np.isclose(rtol=1e-4, atol=1e-5) with an error ratio <= 1e-4, i.e. none of the 8192 may differ.
; Run: vcore run programs/kernels/gelu.asm --cores 2
.equ GX, 0x00000           ; GM: x, [256, 32] f32
.equ GY, 0x08000           ; GM: y
.equ X, 0x0000             ; UB: xLocal, singleCoreLength floats
.equ Y, 0x4000             ; UB: yLocal
.equ SINGLE_CORE_LENGTH, 4096
.equ ONE_REPEAT_SIZE, 64   ; GetVecLen() / sizeof(float)
.equ SLICE_BLOCKS, SINGLE_CORE_LENGTH * 4 / 32

    MOV S1, BLOCKIDX
    MUL S4, S1, SINGLE_CORE_LENGTH * 4     ; GetBlockIdx() * singleCoreLength floats, in bytes
    DMA.GM2UB [X], gm[S4 + GX], len=SLICE_BLOCKS
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    MOV S1, X                              ; xAddr
    MOV S2, Y                              ; yAddr
    MOV S5, SINGLE_CORE_LENGTH             ; count
    MOV S6, (SINGLE_CORE_LENGTH + ONE_REPEAT_SIZE - 1) / ONE_REPEAT_SIZE   ; loopNum = DivCeil(...)
    VF.BEGIN                               ; GeluVfMethod2
        LOOP S6
            PUPDATE.b32 P0, S5             ; mask = UpdateMask<float>(count)
            VLD.f32 V0, [S1], post=ONE_REPEAT_SIZE
            VMUL.f32 V1, V0, V0, P0        ; x^2
            VMUL.f32 V1, V1, V0, P0        ; x^3
            VMULS.f32 V1, V1, -0.071405, P0    ; COEFF_CUBIC * x^3
            VMULS.f32 V2, V0, -1.595769, P0    ; COEFF_LINEAR * x
            VADD.f32 V1, V2, V1, P0        ; -1.595769 x - 0.071405 x^3
            VEXP.f32 V1, V1, P0            ; exp(...)
            VADDS.f32 V1, V1, 1.0, P0      ; 1 + exp(...)
            VDIV.f32 V1, V0, V1, P0        ; x / (1 + exp(...))
            VST.f32 [S2], V1, P0, post=ONE_REPEAT_SIZE
        ENDLOOP
    VF.END
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S4 + GY], [Y], len=SLICE_BLOCKS
    HALT

; RUN --cores 2
; LOAD gm:0x0 = data/gelu/x.npy
; EXPECT gm:0x8000:f32:8192 ~= data/gelu/golden.npy rtol=1e-4 atol=1e-5
