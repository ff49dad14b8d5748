// Tunable single-precision GEMM after CLTune's case study (Nugteren &
// Codreanu 2015, section VI) and CLBlast's xgemm kernel:
//
//   C[n][m] = alpha * sum_{k<K} A[k][m] * B[k][n] + beta * Cin[n][m]
//
// that is C = alpha * A^T B + beta * C with A stored K x M, B stored K x N
// and C stored N x M, each with its first index slowest (CLBlast's
// column-major C, M contiguous). C is written out of place (Cin to C) so
// that a run can be repeated and verified. M, N and K are arguments; every
// other value comes from the build options:
//
//   MWG, NWG, KWG  tile of C (MWG x NWG) and depth of the K loop step of
//                  one work-group
//   MDIMC, NDIMC   work-group size; each work-item computes
//                  MWI x NWI = (MWG/MDIMC) x (NWG/NDIMC) values of C
//   MDIMA, NDIMB   the work-group re-shaped as MDIMA x KDIMA (KDIMB x NDIMB)
//                  to load the A (B) tile into local memory
//   KWI            unroll factor of the loop over KWG
//   VWM, VWN       vector widths of the loads of A and C (VWM) and B (VWN)
//   STRM, STRN     0: a work-item's values of C in M (N) are contiguous;
//                  1: strided by the work-group size, so that neighbouring
//                  work-items touch neighbouring vectors
//   SA, SB         1: stage the A (B) tile in local memory
//
// The shape must be a multiple of the tile (M % MWG, N % NWG and K % KWG
// all 0): gemm.go accepts only shapes that every configuration divides,
// as CLBlast pads the matrices beforehand.

#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define KDIMA ((MDIMC * NDIMC) / MDIMA)
#define KDIMB ((MDIMC * NDIMC) / NDIMB)
#define MWA (MWG / MDIMA)
#define KWA (KWG / KDIMA)
#define KWB (KWG / KDIMB)
#define NWB (NWG / NDIMB)

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)

#if VWM == 1
typedef float realM;
#else
typedef XCAT(float, VWM) realM;
#endif
#if VWN == 1
typedef float realN;
#else
typedef XCAT(float, VWN) realN;
#endif

// LANE reads element e of a vector held in private memory.
#define LANE(v, e) (((const float*)&(v))[e])

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void gemm(const int M, const int N, const int K,
          const float alpha, const float beta,
          const __global realM* restrict A,
          const __global realN* restrict B,
          const __global realM* restrict Cin,
          __global realM* restrict C) {
  const int lid0 = get_local_id(0);
  const int lid1 = get_local_id(1);
  const int tid = lid1 * MDIMC + lid0;
  const int mv = M / VWM;  // vectors in a row of A and C
  const int nv = N / VWN;  // vectors in a row of B
  // The work-group's first vector of A and C in M, and of B in N.
  const int gm = get_group_id(0) * (MWG / VWM);
  const int gn = get_group_id(1) * (NWG / VWN);

#if SA
  __local realM alm[KWG * (MWG / VWM)];
  const int la0 = tid % MDIMA;
  const int la1 = tid / MDIMA;
#endif
#if SB
  __local realN blm[KWG * (NWG / VWN)];
  const int lb0 = tid % NDIMB;
  const int lb1 = tid / NDIMB;
#endif

  realM cpm[NWI][MWI / VWM];
  #pragma unroll
  for (int ni = 0; ni < NWI; ni++) {
    #pragma unroll
    for (int mi = 0; mi < MWI / VWM; mi++) {
      cpm[ni][mi] = (realM)0.0f;
    }
  }
  realM apm[MWI / VWM];
  realN bpm[NWI / VWN];

  for (int kwg = 0; kwg < K; kwg += KWG) {
#if SA
    // The MDIMA x KDIMA re-shaped work-group loads the KWG x MWG tile.
    #pragma unroll
    for (int mia = 0; mia < MWA / VWM; mia++) {
      #pragma unroll
      for (int kia = 0; kia < KWA; kia++) {
#if STRM == 0
        const int mg = mia + la0 * (MWA / VWM);
#else
        const int mg = la0 + mia * MDIMA;
#endif
        const int kg = kia + la1 * KWA;
        alm[kg * (MWG / VWM) + mg] = A[(kwg + kg) * mv + gm + mg];
      }
    }
#endif
#if SB
    #pragma unroll
    for (int kib = 0; kib < KWB; kib++) {
      #pragma unroll
      for (int nib = 0; nib < NWB / VWN; nib++) {
#if STRN == 0
        const int ng = nib + lb0 * (NWB / VWN);
#else
        const int ng = lb0 + nib * NDIMB;
#endif
        const int kg = kib + lb1 * KWB;
        blm[kg * (NWG / VWN) + ng] = B[(kwg + kg) * nv + gn + ng];
      }
    }
#endif
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    for (int pwi = 0; pwi < KWG; pwi += KWI) {
      #pragma unroll
      for (int pit = 0; pit < KWI; pit++) {
        const int kg = pwi + pit;
        #pragma unroll
        for (int mi = 0; mi < MWI / VWM; mi++) {
#if STRM == 0
          const int mg = mi + lid0 * (MWI / VWM);
#else
          const int mg = lid0 + mi * MDIMC;
#endif
#if SA
          apm[mi] = alm[kg * (MWG / VWM) + mg];
#else
          apm[mi] = A[(kwg + kg) * mv + gm + mg];
#endif
        }
        #pragma unroll
        for (int ni = 0; ni < NWI / VWN; ni++) {
#if STRN == 0
          const int ng = ni + lid1 * (NWI / VWN);
#else
          const int ng = lid1 + ni * NDIMC;
#endif
#if SB
          bpm[ni] = blm[kg * (NWG / VWN) + ng];
#else
          bpm[ni] = B[(kwg + kg) * nv + gn + ng];
#endif
        }
        #pragma unroll
        for (int ni = 0; ni < NWI / VWN; ni++) {
          #pragma unroll
          for (int e = 0; e < VWN; e++) {
            const float b = LANE(bpm[ni], e);
            #pragma unroll
            for (int mi = 0; mi < MWI / VWM; mi++) {
              cpm[ni * VWN + e][mi] = fma(apm[mi], (realM)b, cpm[ni * VWN + e][mi]);
            }
          }
        }
      }
    }
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

  #pragma unroll
  for (int ni = 0; ni < NWI; ni++) {
#if STRN == 0
    const int ng = ni + lid1 * NWI;
#else
    const int ng = ni % VWN + lid1 * VWN + (ni / VWN) * VWN * NDIMC;
#endif
    const int n = get_group_id(1) * NWG + ng;
    #pragma unroll
    for (int mi = 0; mi < MWI / VWM; mi++) {
#if STRM == 0
      const int mg = mi + lid0 * (MWI / VWM);
#else
      const int mg = lid0 + mi * MDIMC;
#endif
      const int i = n * mv + gm + mg;
      C[i] = alpha * cpm[ni][mi] + beta * Cin[i];
    }
  }
}
