; Calibration: the ND -> NZ reorder on a2 (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/04_memory_access/bank_conflict_nd2nz): one copy of
; REP repeats of 128 halves, read contiguously, written with a block stride of STRIDE blocks (144:
; every block of a repeat in one bank group; 145: spread over 8) and a repeat stride of one block.
; vcore has no VCOPY: VADDS of 0.0 has the same shape and price class (a unary, scalar form).
.equ REP, 144
.equ STRIDE, 144
.equ ND, 0x0
.equ NZ, 0x12000
    VADDS.f16 [NZ], [ND], 0.0, repeat=REP, dstblk=STRIDE, dstrep=1, srcrep=8
    HALT
