; Cookbook recipe 8, the other half: reusing a UB buffer without a flag (a WAR race on purpose).
;
; X holds tile 0 (1.0). V is busy with a long VEXP (255 iterations of 64 f32 at 16 lanes a
; cycle on two transcendental units, about 550 cycles), so the VMULS meant for tile 0 starts late. Nothing orders the
; DMA that brings tile 1 (2.0) into X after that VMULS, so MTE2 starts at once, its write
; lands after about 100 cycles, and the VMULS then reads tile 1: 2 * 2 = 4, not 2 * 1 = 2.
; vcore reports "race (WAR)". The fix (programs/cookbook_dma_pipeline.asm): SETFLAG V, MTE2
; after the VMULS and WAITFLAG V, MTE2 before the DMA.
.equ X, 0x0000
.ubfill X, f32, 64, 1.0                                   ; tile 0
.gmfill 0x0, f32, 64, 2.0                                 ; tile 1
    VEXP.f32  [0x2100], [0x3000], repeat=255, dstrep=0, srcrep=0
    VMULS.f32 [0x1000], [X], 2.0                          ; meant for tile 0
    DMA.GM2UB [X], gm[0x0], len=8                         ; tile 1 overwrites X too early
    HALT
; EXPECT-RACE WAR
; EXPECT ub:0x1000:f32:2 = 4 4
; EXPECT ub:0x2100:f32:1 = 1
