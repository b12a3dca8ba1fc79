; Calibration: the hardware data_copy sample (asc-devkit examples/01_simd_cpp_api/05_best_practices/
; 04_memory_access/data_copy, kernel_data_copy_pad_gm2ub), run on every core of the chip: each core
; issues K copies GM -> UB back to back into UB 0, no synchronisation between them, each copy
; BURSTS bursts of LEN 32-byte units, GAP units apart in GM (the sample's rows of 12288 halves).
; OFFSET moves the GM start off the 512-byte windows: the sample's unaligned case moves 2046-byte
; rows at 2-byte offsets, which vcore's 32-byte units cannot write; 2048-byte bursts 32 bytes off
; straddle the same 5 windows of 512 bytes each.
.equ K, 12
.equ BURSTS, 1
.equ LEN, 4
.equ GAP, 764
.equ OFFSET, 0
.rept K
    DMA.GM2UB [0x0], gm[OFFSET], blocks=BURSTS, len=LEN, srcgap=GAP
.endr
    HALT
