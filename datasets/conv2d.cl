// Tunable 2D correlation ("same" size, zero padding), after CLTune's
// convolution case study (Nugteren & Codreanu 2015, section V).
//
//   B[y][x] = sum_{j<FH} sum_{i<FW} F[j][i] * A[y + j - FH/2][x + i - FW/2]
//
// where A reads as 0 outside the width x height image. Width and height are
// arguments, so one program serves every image size; everything else comes
// from the build options:
//
//   FW, FH      filter width and height (odd)
//   Xwg, Ywg    work-items of a work-group that compute outputs
//   Xwpt, Ywpt  outputs per work-item, a contiguous Xwpt x Ywpt block
//   LS          0: read A from global memory only;
//               1: the work-group stages its tile and halo in local memory,
//                  every work-item loading several values;
//               2: like 1, but extra halo work-items join the work-group,
//                  each loading one Xwpt x Ywpt block; they leave before
//                  computing
//   VW          vector width of global stores (and of global loads with LS 2)
//   PAD         floats added to each local-memory row against bank conflicts
//   UNR         1: unroll the filter loops; 0: keep them rolled
//
// Every load and store is bounds-guarded, so any configuration runs on any
// image size: the launch covers the image with whole work-groups, and
// work-items past the edge compute values they never store.

#define HX (FW / 2)
#define HY (FH / 2)

// Outputs computed by one work-group.
#define TX (Xwg * Xwpt)
#define TY (Ywg * Ywpt)

// Extra halo work-items: enough Xwpt x Ywpt blocks to cover the halo.
#if LS == 2
#define XH ((2 * HX + Xwpt - 1) / Xwpt)
#define YH ((2 * HY + Ywpt - 1) / Ywpt)
#else
#define XH 0
#define YH 0
#endif

// Work-group size; Geometry in conv2d.go computes the same.
#define LX (Xwg + XH)
#define LY (Ywg + YH)

// Local tile, in floats, before padding; Geometry in conv2d.go computes
// the same to report the local memory of a configuration.
#if LS == 1
#define LW (TX + 2 * HX)
#define LH (TY + 2 * HY)
#elif LS == 2
#define LW (LX * Xwpt)
#define LH (LY * Ywpt)
#endif

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)

// UNR decides the filter loops only; the loops over a work-item's outputs
// are always unrolled so that its accumulators stay in registers. UNR 0
// says "unroll 1" rather than nothing because the bounds are compile-time
// constants, which compilers unroll on their own: without it the parameter
// would change nothing.
#if UNR
#define UNROLL_FILTER _Pragma("unroll")
#else
#define UNROLL_FILTER _Pragma("unroll 1")
#endif
#define UNROLL_WPT _Pragma("unroll")

// LD reads A at (x, y), or 0 outside the image. The unsigned comparisons
// test both bounds at once. It is a macro rather than an inline function
// because OpenCL C 1.2 compilers differ on inline linkage.
#define LD(x, y) \
  (((uint)(x) < (uint)width && (uint)(y) < (uint)height) ? A[(y) * width + (x)] : 0.0f)

// MOVE_VW copies VW consecutive floats from src to dst as one vector.
#if VW == 1
#define MOVE_VW(dst, src) (*(dst) = *(src))
#else
#define MOVE_VW(dst, src) XCAT(vstore, VW)(XCAT(vload, VW)(0, src), 0, dst)
#endif

__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))
void conv2d(const int width, const int height,
            const __global float* restrict A,
            __constant float* restrict F,
            __global float* restrict B) {
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  // The work-item's first output.
  const int x0 = get_group_id(0) * TX + lx * Xwpt;
  const int y0 = get_group_id(1) * TY + ly * Ywpt;

#if LS != 0
  __local float tile[LH][LW + PAD];
  // Global coordinates of tile[0][0].
  const int gx0 = get_group_id(0) * TX - HX;
  const int gy0 = get_group_id(1) * TY - HY;
#endif

#if LS == 1
  // Neighbouring work-items load neighbouring values, so the loads
  // coalesce; the loops cover the halo with the tile.
  for (int ty = ly; ty < LH; ty += Ywg) {
    for (int tx = lx; tx < LW; tx += Xwg) {
      tile[ty][tx] = LD(gx0 + tx, gy0 + ty);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#elif LS == 2
  // Every work-item, halo work-items included, loads its own block.
  UNROLL_WPT
  for (int wy = 0; wy < Ywpt; wy++) {
    const int ty = ly * Ywpt + wy;
    const int gy = gy0 + ty;
    UNROLL_WPT
    for (int v = 0; v < Xwpt; v += VW) {
      const int tx = lx * Xwpt + v;
      const int gx = gx0 + tx;
      if ((uint)gy < (uint)height && gx >= 0 && gx + VW <= width) {
        MOVE_VW(&tile[ty][tx], &A[gy * width + gx]);
      } else {
        for (int e = 0; e < VW; e++) {
          tile[ty][tx + e] = LD(gx + e, gy);
        }
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Halo work-items have done their part; no barrier follows.
  if (lx >= Xwg || ly >= Ywg) {
    return;
  }
#endif

  float acc[Ywpt][Xwpt];
  UNROLL_WPT
  for (int wy = 0; wy < Ywpt; wy++) {
    UNROLL_WPT
    for (int wx = 0; wx < Xwpt; wx++) {
      acc[wy][wx] = 0.0f;
    }
  }

#if LS == 0
  // Without local memory, the work-item reads the window its outputs
  // touch into private memory once, so that each input value is loaded
  // (and bounds-tested) once rather than once per output it feeds.
  float win[Ywpt + FH - 1][Xwpt + FW - 1];
  UNROLL_FILTER
  for (int r = 0; r < Ywpt + FH - 1; r++) {
    UNROLL_FILTER
    for (int s = 0; s < Xwpt + FW - 1; s++) {
      win[r][s] = LD(x0 - HX + s, y0 - HY + r);
    }
  }
#define IN(r, s) win[r][s]
#else
#define IN(r, s) tile[ly * Ywpt + (r)][lx * Xwpt + (s)]
#endif

  // The filter loops hold no branches: PoCL's work-group compiler takes
  // minutes over conditionals inside rolled loops of a kernel with
  // barriers.
  UNROLL_FILTER
  for (int j = 0; j < FH; j++) {
    UNROLL_FILTER
    for (int i = 0; i < FW; i++) {
      const float f = F[j * FW + i];
      UNROLL_WPT
      for (int wy = 0; wy < Ywpt; wy++) {
        UNROLL_WPT
        for (int wx = 0; wx < Xwpt; wx++) {
          acc[wy][wx] += f * IN(wy + j, wx + i);
        }
      }
    }
  }

  UNROLL_WPT
  for (int wy = 0; wy < Ywpt; wy++) {
    const int y = y0 + wy;
    if (y >= height) {
      break;
    }
    UNROLL_WPT
    for (int v = 0; v < Xwpt; v += VW) {
      const int x = x0 + v;
      if (x + VW <= width) {
        MOVE_VW(&B[y * width + x], &acc[wy][v]);
      } else {
        for (int e = 0; e < VW && x + e < width; e++) {
          B[y * width + x + e] = acc[wy][v + e];
        }
      }
    }
  }
}
