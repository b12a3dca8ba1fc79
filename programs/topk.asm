; Top-k: the 8 largest of 128 f32 scores and where they are, as the a2's sort instructions do it.
; VSORT32 sorts each group of 32 (score, index) records by descending score; VMRGSORT merges the four
; sorted groups and, with stop=1, stops once one of them is used up: by then it has written at least
; 32 records (a whole queue), and they are the largest of all, in order. MRGCNT0..3 say how many came
; from each queue. Two VGATHERMs then split the first 8 records into the scores (the even u32 words)
; and the indices (the odd ones). Three scores tie at 121.25 (indices 40, 100, 113): the lower queue
; comes first, then input order.
; PROFILE a2
.equ SCORES, 0x0
.equ IDX,    0x200
.equ SORTED, 0x400                     ; 4 queues of 32 records (256 bytes each)
.equ TOP,    0x800
.equ TOPS,   0xC00
.equ TOPI,   0xC40
.ub SCORES + 0, f32, -94.75, -43.25, 3.5, 118.5, 6.0, 40.5, 95.0, 118.75, -98.75, 101.25, -68.0, 104.0, 28.75, 34.0, 17.25, -17.5
.ub SCORES + 64, f32, 75.5, 21.5, 15.0, 90.5, 62.0, 73.75, 71.5, 0.5, 67.25, 72.75, 25.0, -12.25, -63.75, -124.5, 32.0, -104.5
.ub SCORES + 128, f32, -96.75, -51.5, 84.0, -100.0, -10.0, -122.25, 83.5, 103.0, 121.25, 0.5, 48.75, -44.75, -71.25, -23.5, -60.75, -36.0
.ub SCORES + 192, f32, 112.75, -33.75, 81.0, -28.75, 65.75, 6.25, 38.25, -105.5, 60.0, -38.0, -102.25, 17.5, 12.5, -50.25, -51.5, -8.0
.ub SCORES + 256, f32, -89.0, 99.25, 40.0, 55.0, 58.25, 22.75, -46.0, -118.75, 92.0, 56.75, -30.75, -32.0, -7.0, -17.0, -102.0, -23.0
.ub SCORES + 320, f32, 103.0, 24.75, 16.75, 2.5, 97.0, -95.25, -16.25, 4.5, 80.25, 67.0, 96.75, 28.5, 99.0, 0.5, -23.25, 109.5
.ub SCORES + 384, f32, 9.25, -59.0, 91.0, -17.5, 121.25, 112.0, -2.5, 6.25, 7.5, 81.0, -118.75, 22.25, -67.75, 71.0, -92.0, 84.25
.ub SCORES + 448, f32, -112.5, 121.25, 55.25, 8.75, 102.0, 46.5, -98.75, 58.5, 34.25, -15.25, -4.75, -88.75, -1.75, 101.25, -66.5, 92.5
    VARANGE.s32 [IDX], 0, repeat=2     ; the indices 0..127 (as u32 bits)
    BARRIER V
    VSORT32.f32 [SORTED], [SCORES], [IDX], repeat=4
    BARRIER V
    VMRGSORT.f32 [TOP], [SORTED], [SORTED + 0x100], [SORTED + 0x200], [SORTED + 0x300], len=(32, 32, 32, 32), stop=1
    BARRIER V
    VGATHERM.u32 [TOPS], [TOP], 1, mask=16   ; 8 records = 16 words: the scores
    BARRIER V                          ; (both write RSVDCNT: on the a2 V does not order them itself)
    VGATHERM.u32 [TOPI], [TOP], 2, mask=16   ; and the indices
    SETFLAG V, S, 0                    ; the counts are read on S: after V has written them
    WAITFLAG V, S, 0
    MOV S1, MRGCNT0
    MOV S2, MRGCNT1
    MOV S3, MRGCNT2
    MOV S4, MRGCNT3
    ADD S5, S1, S2
    ADD S5, S5, S3
    ADD S5, S5, S4                     ; the records written
    MOV S6, RSVDCNT                    ; the last VGATHERM's count: 8
    HALT
; EXPECT ub:0xC00:f32:8 = 121.25 121.25 121.25 118.75 118.5 112.75 112 109.5
; EXPECT ub:0xC40:u32:8 = 40 100 113 7 3 48 101 95
; EXPECT S5 = 125
; EXPECT S6 = 8
