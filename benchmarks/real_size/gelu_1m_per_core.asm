; GELU over N floats a core (issue 30's real size: 1M floats a core, 64 cores, x at GM 0 and y at
; 256 MiB: run with --gm-size 0x20000000), tiled: 8192 floats (32 KiB) a tile, DMA in, the vector
; function of programs/kernels/gelu.asm over it, DMA out. The data is GM's zeros: the run is timed,
; not checked (programs/kernels/gelu.asm is, against its sample's golden data).
.equ N, 1048576
.equ TILE, 8192
.equ GX, 0x0
.equ GY, 0x10000000
.equ X, 0x0
.equ Y, 0x10000
    MOV S1, BLOCKIDX
    MUL S10, S1, N * 4
    MOV S11, 0                             ; tile
    SETFLAG V, MTE2, 0
    SETFLAG MTE3, V, 0
tile:
    MUL S12, S11, TILE * 4
    ADD S12, S12, S10
    WAITFLAG V, MTE2, 0
    DMA.GM2UB [X], gm[S12 + GX], len=TILE * 4 / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    WAITFLAG MTE3, V, 0
    MOV S1, X
    MOV S2, Y
    MOV S5, TILE
    VF.BEGIN
        LOOP TILE / 64
            PUPDATE.b32 P0, S5
            VLD.f32 V0, [S1], post=64
            VMUL.f32 V1, V0, V0, P0
            VMUL.f32 V1, V1, V0, P0
            VMULS.f32 V1, V1, -0.071405, P0
            VMULS.f32 V2, V0, -1.595769, P0
            VADD.f32 V1, V2, V1, P0
            VEXP.f32 V1, V1, P0
            VADDS.f32 V1, V1, 1.0, P0
            VDIV.f32 V1, V0, V1, P0
            VST.f32 [S2], V1, P0, post=64
        ENDLOOP
    VF.END
    SETFLAG V, MTE2, 0
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    ADD S13, S12, GY
    DMA.UB2GM gm[S13], [Y], len=TILE * 4 / 32
    SETFLAG MTE3, V, 0
    ADD S11, S11, 1
    BLT S11, N / TILE, tile
    WAITFLAG V, MTE2, 0
    WAITFLAG MTE3, V, 0
    HALT
