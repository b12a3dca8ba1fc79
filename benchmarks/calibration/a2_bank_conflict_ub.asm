; Calibration: the A2 UB bank-conflict sample (asc-devkit
; examples/01_simd_cpp_api/05_best_practices/04_memory_access/bank_conflict_ub). 1000 back-to-back
; VADD.f32 of 64 repeats (16 KB an operand), issued from a scalar loop with no barrier between them;
; the hardware timed them with GetSystemCycle between two PipeBarrier<PIPE_ALL>. The scenario is
; chosen with -D: the operands' addresses and src0's block and repeat strides.
.equ SRC0, 0x0
.equ SRC1, 0x10100
.equ DST, 0x20000
.equ S0BLK, 1
.equ S0REP, 8
.equ N, 1000
    MOV S1, 0
again:
    VADD.f32 [DST], [SRC0], [SRC1], repeat=64, src0blk=S0BLK, src0rep=S0REP
    ADD S1, S1, 1
    BLT S1, N, again
    HALT
