; Add two f16 vectors of 256 elements (2 iterations of 128 lanes) and scale the sum.
; Run it: vcore run programs/vadd_basic.asm --dump ub:0x1000:f16:4
.ubfill 0x0000, f16, 256, 1.5
.ubfill 0x0800, f16, 256, 2.25
    VADD.f16  [0x1000], [0x0000], [0x0800], repeat=2     ; 1.5 + 2.25 = 3.75
    VMULS.f16 [0x1000], [0x1000], 2.0, repeat=2          ; in place: 7.5
    HALT
; EXPECT ub:0x1000:f16:4 = 7.5 7.5 7.5 7.5
; EXPECT ub:0x11fc:f16:2 = 7.5 7.5
; EXPECT ub:0x1200:f16:2 = 0.0 0.0
