; Calibration (held out): the GELU + element-wise vector function (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/02_reg_compute/gelu_eltwise_high_performance): one
; tile of 8192 f32 (x at 0x0, y at 0x10000, the sample's ping buffers), y = exp(-0.5 * (GELU(x) +
; 1)^2 + 2), GELU(x) = x / (1 + exp(-1.595769 * (x + 0.044715 * x^3))): 8 + 5 instructions an
; iteration. The sample measures the vector time of 128 such calls a core.
;   case 0 (-D VL32=1): GeluEltwiseBasic at 128 bytes a pass: a fixed VL32 mask (CreateMask before
;          the loop), 256 iterations of 32 elements, one loop of load, 13 ops, store
;   case 1 (the default): GeluEltwiseBasic, 128 iterations of 64 with UpdateMask (PUPDATE)
;   case 2 (-D SPLIT=1): GeluEltwiseLoopSplit: a loop of load, the 8 GELU ops, store to y; then a
;          loop of load y, the 5 element-wise ops, store to y. The second loop reads what the first
;          wrote, so a MEMBAR stands between them (the sample has none in its source; as in
;          vf_softmax.asm, vcore needs it to order the two loops' UB accesses)
;   case 3 (-D SPLIT=1 -D UNROLL6=1): case 2 with #pragma unroll 6 on both loops: 21 passes of six
;          copies of the body, one after another in source order (each copy its own registers and
;          mask, at [S + 256 * k]), then a remainder loop of 2 iterations of one copy. The order the
;          compiler gives the copies' instructions is not known: they are not interleaved here.
.equ N, 8192
.equ VL32, 0
.equ SPLIT, 0
.equ UNROLL6, 0
.equ ITERS, N / 64
; one iteration of the GELU part on x (X) into y (Y) under mask PM
.macro GELU x, y, pm
    VMUL.f32 \y, \x, \x, \pm
    VMUL.f32 \y, \y, \x, \pm
    VMULS.f32 \y, \y, 0.044715, \pm
    VADD.f32 \y, \x, \y, \pm
    VMULS.f32 \y, \y, -1.595769, \pm
    VEXP.f32 \y, \y, \pm
    VADDS.f32 \y, \y, 1.0, \pm
    VDIV.f32 \y, \x, \y, \pm
.endm
; the element-wise part on y: exp(-0.5 * (y + 1)^2 + 2)
.macro ELTWISE y, pm
    VADDS.f32 \y, \y, 1.0, \pm
    VMUL.f32 \y, \y, \y, \pm
    VMULS.f32 \y, \y, -0.5, \pm
    VADDS.f32 \y, \y, 2.0, \pm
    VEXP.f32 \y, \y, \pm
.endm
; an iteration of the split loops, the copy at byte offset OFF of its pass, POST elements on after
.macro GELU_ITER x, y, pm, off, post
    PUPDATE.b32 \pm, S3
    VLD.f32 \x, [S1 + \off], post=\post
    GELU \x, \y, \pm
    VST.f32 [S2 + \off], \y, \pm, post=\post
.endm
.macro ELTWISE_ITER y, pm, off, post
    PUPDATE.b32 \pm, S4
    VLD.f32 \y, [S5 + \off], post=\post
    ELTWISE \y, \pm
    VST.f32 [S6 + \off], \y, \pm, post=\post
.endm
    MOV S1, 0x0                 ; x
    MOV S2, 0x10000             ; y
    MOV S3, N                   ; n: UpdateMask's count (loop 1)
    MOV S4, N                   ; n2 (loop 2)
    MOV S5, 0x10000             ; loop 2 reads y ...
    MOV S6, 0x10000             ; ... and writes it back
    VF.BEGIN
.rept 1 - SPLIT
.rept VL32
    PSET.b32 P0, VL32
    LOOP N / 32
        VLD.f32 V0, [S1], post=32
        GELU V0, V1, P0
        ELTWISE V1, P0
        VST.f32 [S2], V1, P0, post=32
    ENDLOOP
.endr
.rept 1 - VL32
    LOOP ITERS
        PUPDATE.b32 P0, S3
        VLD.f32 V0, [S1], post=64
        GELU V0, V1, P0
        ELTWISE V1, P0
        VST.f32 [S2], V1, P0, post=64
    ENDLOOP
.endr
.endr
.rept SPLIT
.rept 1 - UNROLL6
    LOOP ITERS
        GELU_ITER V0, V1, P0, 0, 64
    ENDLOOP
    MEMBAR                      ; loop 2 reads the y loop 1 wrote
    LOOP ITERS
        ELTWISE_ITER V1, P0, 0, 64
    ENDLOOP
.endr
.rept UNROLL6
    LOOP ITERS / 6
        GELU_ITER V0, V1, P0, 0, 0
        GELU_ITER V2, V3, P1, 256, 0
        GELU_ITER V4, V5, P2, 512, 0
        GELU_ITER V6, V7, P3, 768, 0
        GELU_ITER V8, V9, P4, 1024, 0
        GELU_ITER V10, V11, P5, 1280, 6 * 64
    ENDLOOP
    LOOP ITERS % 6
        GELU_ITER V0, V1, P0, 0, 64
    ENDLOOP
    MEMBAR                      ; loop 2 reads the y loop 1 wrote
    LOOP ITERS / 6
        ELTWISE_ITER V1, P0, 0, 0
        ELTWISE_ITER V3, P1, 256, 0
        ELTWISE_ITER V5, P2, 512, 0
        ELTWISE_ITER V7, P3, 768, 0
        ELTWISE_ITER V9, P4, 1024, 0
        ELTWISE_ITER V11, P5, 1280, 6 * 64
    ENDLOOP
    LOOP ITERS % 6
        ELTWISE_ITER V1, P0, 0, 64
    ENDLOOP
.endr
.endr
    VF.END
    HALT
