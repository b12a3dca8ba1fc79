; Cookbook recipe 7: gather/scatter index conventions (f32, so the index lanes are u32).
;
; VGATHER.T Vd, [Sa], Vi, Pm   d[i] = the T at byte Sa + idx[i] * size  (idx counts ELEMENTS)
; VSCATTER.T [Sa], Vs, Vi, Pm  the T at byte Sa + idx[i] * size = s[i]; higher lane wins
; Index lanes: u32 for 32-bit T, u16 for 8- and 16-bit T. Sa is a byte address, 32-byte aligned.
;   TABLE[k] = 10 * k, k = 0..15.
;   1. gather with IDX = 3 0 3 15 1 1 7 2 (VL8): duplicates simply read the same element twice.
;      Lanes 8..63 are masked off: zero in the result, their index (0) never read.
;   2. the pitfall: byte offsets 0 4 8 12 meant as elements 0..3 read elements 0, 4, 8, 12.
;   3. scatter 100..107 with SIDX = 5 5 0 2 5 9 0 7: OUTS[5] = 104 (lane 4 beats 0 and 1),
;      OUTS[0] = 106 (lane 6 beats 2).
;   4. the pitfall of a gather / add / scatter "histogram" with the same SIDX: duplicate lanes
;      all read the old 0, all write 1, so HIST[5] = 1, not 3, and HIST[0] = 1, not 2.
; All of it is one vector function. Its UB accesses are not ordered among themselves, but none
; reads what another wrote; the scatter to HIST comes after the gather from HIST because it
; stores V7, computed from the gathered V6 (a register dependency orders them: no MEMBAR needed).
.equ TABLE, 0x0000         ; 16 f32
.equ IDX,   0x0100         ; u32 element indices
.equ BIDX,  0x0200         ; u32 byte offsets (wrong)
.equ SIDX,  0x0300         ; u32 scatter indices
.equ VALS,  0x0400         ; f32 100..107
.equ OUTG,  0x1000
.equ OUTB,  0x1100
.equ OUTS,  0x1200
.equ HIST,  0x1300         ; 16 f32 = 0
.ub TABLE, f32, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150
.ub IDX, u32, 3, 0, 3, 15, 1, 1, 7, 2
.ub BIDX, u32, 0, 4, 8, 12
.ub SIDX, u32, 5, 5, 0, 2, 5, 9, 0, 7
.ub VALS, f32, 100, 101, 102, 103, 104, 105, 106, 107
.ubfill OUTG, f32, 64, -1.0
.ubfill OUTB, f32, 64, -1.0
.ubfill OUTS, f32, 16, -1.0

    MOV S1, TABLE
    MOV S2, IDX
    MOV S3, BIDX
    MOV S4, SIDX
    MOV S5, VALS
    MOV S6, OUTG
    MOV S7, OUTB
    MOV S8, OUTS
    MOV S9, HIST
    VF.BEGIN
        PSET.b32 P0, VL8
        PSET.b32 P1, VL4
        PSET.b32 P7, ALL
        VLD.u32 V0, [S2]
        VGATHER.f32 V1, [S1], V0, P0          ; 1
        VST.f32 [S6], V1, P7
        VLD.u32 V2, [S3]
        VGATHER.f32 V3, [S1], V2, P1          ; 2 (pitfall)
        VST.f32 [S7], V3, P1
        VLD.u32 V4, [S4]
        VLD.f32 V5, [S5]
        VSCATTER.f32 [S8], V5, V4, P0         ; 3
        VGATHER.f32 V6, [S9], V4, P0          ; 4 (pitfall)
        VADDS.f32 V7, V6, 1.0, P0
        VSCATTER.f32 [S9], V7, V4, P0
    VF.END
    HALT

; EXPECT ub:0x1000:f32:9 = 30 0 30 150 10 10 70 20 0
; EXPECT ub:0x10fc:f32:1 = 0
; EXPECT ub:0x1100:f32:5 = 0 40 80 120 -1
; EXPECT ub:0x1200:f32:11 = 106 -1 103 -1 -1 104 -1 107 -1 105 -1
; EXPECT ub:0x1300:f32:11 = 1 0 1 0 0 1 0 1 0 1 0
