; Kernel zoo: Broadcast, [1, 48] -> [96, 48] (axis 0) and [96, 1] -> [96, 96] (axis 1), 8 cores, f32.
; Sample: examples/01_simd_cpp_api/04_advanced_api/08_transpose/broadcast/broadcast.asc
; Port of the CANN asc-devkit sample examples/01_simd_cpp_api/04_advanced_api/08_transpose/broadcast/
; broadcast.asc (KernelBroadcastCustom<float, dim, axis>, broadcast_custom): y = x broadcast to the
; output shape with the Broadcast high-level API, for both of the sample's test cases (its main's
; argv "0": x [1, 48] -> y [96, 48]; argv "1": x [96, 1] -> y [96, 96]). The program launches the
; kernel twice, once per test case, each launch with its own kernel arguments (x, y, tiling) read from
; the launch table LAUNCHES, and ends each launch with BARRIER ALL (a launch ends with its pipes
; drained), so the two launches do not race on UB.
; Cores: the sample runs numBlocks = 1; here the 96 output rows split over 8 cores, 12 rows each.
; Tiling: the sample's BroadcastTilingData {dim, axis, srcFirstDim, srcLastDim, dstFirstDim,
; dstLastDim} (uint32 each, read from GM as its CopyTiling does), plus one field the port adds,
; blockRows = dstFirstDim / numBlocks = 12 (vcore has no scalar divide, so the host computes it):
;     +0 dim  +4 axis  +8 srcFirstDim  +12 srcLastDim  +16 dstFirstDim  +20 dstLastDim  +24 blockRows
; The kernel dispatches on axis as broadcast_custom does (its dim == 1 branch, a 1-D [1] -> [N], is
; used by neither test case and not ported). The tiling places each core's slices (x + blockRows * K
; rows for axis 1, the whole x row for axis 0; y + blockRows * dstLastDim * K); vcore's repeat=, mask=
; and DMA len= are immediates, so the per-row counts in the instructions are the constants below.
; Steps per launch (TQue depth 1: CopyIn, Compute, CopyOut):
;   CopyIn   DataCopy(xLocal, xGm, srcLength)        DMA.GM2UB, then MTE2 -> V event 0 (EnQue/DeQue)
;   Compute  Broadcast<float, 2, axis>(yLocal, xLocal, dstShape, srcShape), in tensor instructions
;            (vcore has no Copy instruction: a multiply by 1.0 is a bit-exact copy of the f32 lanes)
;     axis 0 ([1, 48] -> [12, 48] a core): one VMULS whose source repeat stride is 0, so each of its
;            12 iterations (one output row, mask=48 lanes = 6 datablocks, dstrep=6) re-reads x's row
;     axis 1 ([12, 1] -> [12, 96] a core): VBRCB spreads element k of x into datablock k of B (8
;            copies), then VMULS with srcblk=0, srcrep=1 writes row k from datablock k: lanes 0..63
;            of every row, then lanes 64..95 (mask=32) at +256; dstrep=12 (a 384-byte row). A BARRIER V
;            stands between VBRCB and the VMULS that read B (the a2 overlaps V instructions).
;            The two VMULS write disjoint bytes (the tail one's masked-out datablocks 4..7 of row k,
;            which would be row k + 1's first blocks, are not written), so nothing orders them.
;   CopyOut  DataCopy(yGm, yLocal, dstLength)        V -> MTE3 event 0, DMA.UB2GM
; The axis 1 copy-in reads 2 datablocks (16 floats) for the core's 12: DMA moves 32-byte blocks (the
; extra 4 floats, the next core's or past x, become rows 12..15 of B and are not used).
; Data: gen/broadcast.py (the sample's gen_data.py: uniform(-10, 10) f32, golden np.broadcast_to);
; its CompareResult allows 1e-5 absolute or relative, but a broadcast copies bits: the EXPECTs are
; exact (rtol=0 atol=0). Valid on the a2 too: vcore run programs/kernels/broadcast.asm --cores 8
; --profile a2
; Run: vcore run programs/kernels/broadcast.asm --cores 8
.equ GX0, 0x0              ; GM: test case 0: x [1, 48] f32
.equ GX1, 0x100            ; GM: test case 1: x [96, 1] f32
.equ GY0, 0x1000           ; GM: test case 0: y [96, 48] f32 (18 KB)
.equ GY1, 0x6000           ; GM: test case 1: y [96, 96] f32 (36 KB)
.equ TILING0, 0x10000      ; GM: the two tiling structs
.equ TILING1, 0x10020
.equ LAUNCHES, 0x10040     ; GM: the kernel arguments of the two launches: x, y, tiling
.equ ROWS, 12              ; blockRows
.equ LAST0, 48             ; test case 0: dstLastDim (srcLastDim)
.equ LAST1, 96             ; test case 1: dstLastDim
.equ X, 0x0000             ; UB: xLocal (<= 256 bytes)
.equ B, 0x0100             ; UB: axis 1: 16 datablocks, datablock k = 8 x x[k]
.equ Y, 0x0400             ; UB: yLocal, 12 rows (4608 bytes at most)
.gm TILING0, u32, 2, 0, 1, 48, 96, 48, 12
.gm TILING1, u32, 2, 1, 96, 1, 96, 96, 12
.gm LAUNCHES, u32, GX0, GY0, TILING0, GX1, GY1, TILING1

    MOV S1, BLOCKIDX
    MOV S10, LAUNCHES                      ; this launch's arguments
launch:
    LD.u32 S11, gm[S10 + 0]                ; x
    LD.u32 S12, gm[S10 + 4]                ; y
    LD.u32 S13, gm[S10 + 8]                ; tiling
    LD.u32 S2, gm[S13 + 4]                 ; axis
    LD.u32 S3, gm[S13 + 20]                ; dstLastDim
    LD.u32 S4, gm[S13 + 24]                ; blockRows
    MUL S5, S1, S4                         ; this core's first row: blockRows * GetBlockIdx()
    MUL S6, S5, S3
    MUL S6, S6, 4
    ADD S12, S12, S6                       ; y + first row * dstLastDim floats
    BEQ S2, 1, axis1

axis0:                                     ; Broadcast<float, 2, 0>: [1, 48] -> [12, 48]
    DMA.GM2UB [X], gm[S11], len=LAST0 * 4 / 32
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VMULS.f32 [Y], [X], 1.0, repeat=ROWS, mask=LAST0, srcrep=0, dstrep=LAST0 * 4 / 32
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S12], [Y], len=ROWS * LAST0 * 4 / 32
    JMP done

axis1:                                     ; Broadcast<float, 2, 1>: [12, 1] -> [12, 96]
    MUL S7, S5, 4
    ADD S11, S11, S7                       ; x + first row floats (srcLastDim = 1)
    DMA.GM2UB [X], gm[S11], len=2          ; 12 floats, in whole datablocks
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VBRCB.f32 [B], [X], repeat=2           ; datablock k of B = 8 x x[k], k = 0..15
    BARRIER V
    VMULS.f32 [Y], [B], 1.0, repeat=ROWS, srcblk=0, srcrep=1, dstrep=LAST1 * 4 / 32
    VMULS.f32 [Y + 256], [B], 1.0, repeat=ROWS, mask=LAST1 - 64, srcblk=0, srcrep=1, dstrep=LAST1 * 4 / 32
    SETFLAG V, MTE3, 0
    WAITFLAG V, MTE3, 0
    DMA.UB2GM gm[S12], [Y], len=ROWS * LAST1 * 4 / 32

done:
    BARRIER ALL                            ; the launch ends: every pipe drained
    ADD S10, S10, 12
    BLT S10, LAUNCHES + 24, launch
    HALT

; RUN --cores 8
; LOAD gm:0x0 = data/broadcast/x0.npy
; LOAD gm:0x100 = data/broadcast/x1.npy
; EXPECT gm:0x1000:f32:4608 ~= data/broadcast/golden0.npy rtol=0 atol=0
; EXPECT gm:0x6000:f32:9216 ~= data/broadcast/golden1.npy rtol=0 atol=0
