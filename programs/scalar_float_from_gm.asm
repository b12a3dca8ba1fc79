; A float from GM as a vector instruction's scalar: LD.u32 brings the 32 bits of the f32 0.25 into
; S1 (the integer 0x3e800000 = 1048576000), and VMAXS.f32 reads S1's low 32 bits as the f32 they
; encode. Nothing converts the integer: MOV S2, 1 then VMAXS.f32 ..., S2 would use the f32 whose
; bits are 1 (about 1.4e-45), not 1.0.
.gm 0x0, f32, 0.25                          ; the threshold, as the host writes it
.gm 0x100, f32, -1.0, 0.0, 0.125, 0.25, 0.5, 2.0, nan, -inf
    LD.u32 S1, gm[0x0]                      ; S1 = 1048576000: the bits of 0.25
    DMA.GM2UB [0x0], gm[0x100], len=1       ; x: 8 f32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VMAXS.f32 [0x100], [0x0], S1, count=8   ; y = max(x, 0.25)
    HALT
; EXPECT S1 = 1048576000
; EXPECT ub:0x100:f32:8 = 0.25 0.25 0.25 0.25 0.5 2.0 nan 0.25
