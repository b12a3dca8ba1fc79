; Calibration: the vector part of the 8192 x 8192 add (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/00_vector_compute/add_high_performance): N count-mode
; VADD.f16 of LEN halves each and TAILN of TAIL halves (the last, shorter chunk), one after
; another, at the sample's UB layout (-D X, Y, Z). The measured figure is the vector pipe's busy
; time (aiv_vec_time) of the busiest core.
.equ N, 86
.equ LEN, 16384
.equ TAILN, 0
.equ TAIL, 128
.equ X, 0x0
.equ Y, 0x8000
.equ Z, 0x10000
.rept N
    VADD.f16 [Z], [X], [Y], count=LEN
.endr
.rept TAILN
    VADD.f16 [Z], [X], [Y], count=TAIL
.endr
    HALT
