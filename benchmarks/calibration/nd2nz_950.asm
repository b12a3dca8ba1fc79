; Calibration: the ND -> NZ reorder on the 950 (bank_conflict_nd2nz_3510.h):
; one vector function a tile, for r < REP: VLD a 256-byte row of ND, VST it to NZ + 32 r with a
; block stride of STRIDE blocks (144: every block in one bank; 145: spread). In case S2 (STRIDE
; 145) the NZ buffer also starts 256 bytes later, at bank 8, as in the sample (-D NZ=0x12100).
.equ REP, 144
.equ STRIDE, 144
.equ ND, 0x0
.equ NZ, 0x12000
    MOV S1, ND
    MOV S2, NZ
    VF.BEGIN
        PSET.b16 P0, ALL
        LOOP REP
            VLD.f16 V0, [S1], post=128
            VST.f16 [S2], V0, P0, blk=STRIDE, post=16
        ENDLOOP
    VF.END
    HALT
