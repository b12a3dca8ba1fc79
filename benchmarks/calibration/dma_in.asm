; Calibration: GM -> UB copies of BLOCKS 32-byte blocks each, K of them back to back on MTE2 into
; the same UB address with no synchronisation (msKPP's single-core DMA table,
; and the hardware data_copy sample issue copies this way).
.equ K, 16
.equ BLOCKS, 32
.rept K
    DMA.GM2UB [0x0], gm[0x0], len=BLOCKS
.endr
    HALT
