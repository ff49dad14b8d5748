// Tunable synthetic stencil, after Garvey and Abdelrahman, "A Strategy for
// Automatic Performance Tuning of Stencil Computations on GPUs" (2018),
// sections 3, 4 and 7.1:
//
//   out[z][y][x] = sum over the stencil's points (dx, dy, dz) of
//                  w(dx, dy, dz) * in[z + dz][y + dy][x + dx]
//
// for every element of an nx x ny x nz output. The input carries the
// stencil's halo around it (the paper's "boundary data copied into place
// beforehand"): it is (HXM + nx + HXP) x (HYM + ny + HYP) x (HZM + nz + HZP)
// floats, output (x, y, z) sitting at input (x + HXM, y + HYM, z + HZM), so
// no load tests a bound. nx, ny and nz are arguments, so one program serves
// every array size; the rest comes from the build options:
//
//   TERMS        the stencil: T(dx,dy,dz,k) for each point, weight k / 256
//                with k in [1, 255], generated from the task
//   HXM ... HZP  the halo below (M) and above (P) the array on each axis:
//                the most negative and most positive offset there
//   WX, WY, WZ   work-group size
//   BX           block merge factor in x, which is also the vector width
//                (the paper's BX = VX); above 1 only with TECH 1
//   CX, CY, CZ   cyclic merge factors: a work-item computes CX blocks in x,
//                WX blocks apart, and likewise CY rows and CZ planes
//   TECH         data-loading technique: 0 global memory, 1 global memory
//                with vector loads and stores of BX floats, 2 the
//                work-group stages its tile and halo in local memory,
//                3 image memory (a 1D image buffer over the input)
//
// A work-group computes a TX x TY x TZ tile. The launch covers the array
// with whole work-groups; work-items past its edge compute nothing.

#define TX (WX * BX * CX)
#define TY (WY * CY)
#define TZ (WZ * CZ)

// The weight of a term: k / 256 is exact in a float.
#define WEIGHT(k) ((float)(k) * (1.0f / 256.0f))

// One signature for every configuration; a device without images gets a
// buffer in place of the image (see datasets.ImageBuffer) and no TECH 3.
#ifdef __IMAGE_SUPPORT__
#define IMAGE_T __read_only image1d_buffer_t
#else
#define IMAGE_T __global const float*
#endif

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)

#if BX == 1
#define FLOATV float
#else
#define FLOATV XCAT(float, BX)
#endif

// The merge loops are always unrolled, so that the accumulators and the
// stencil's terms become straight-line code with constant offsets.
#define UNROLL _Pragma("unroll")

__kernel __attribute__((reqd_work_group_size(WX, WY, WZ)))
void stencil(const int nx, const int ny, const int nz,
             __global const float* restrict in, IMAGE_T img,
             __global float* restrict out) {
  // Strides of the padded input.
  const int px = HXM + nx + HXP;
  const int sy = px;
  const int sz = px * (HYM + ny + HYP);
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  const int lz = get_local_id(2);
  // The work-group's first output element.
  const int x0 = get_group_id(0) * TX;
  const int y0 = get_group_id(1) * TY;
  const int z0 = get_group_id(2) * TZ;

#if TECH == 2
#define LTX (TX + HXM + HXP)
#define LTY (TY + HYM + HYP)
#define LTZ (TZ + HZM + HZP)
  // tile[tz][ty][tx] holds input (x0 + tx, y0 + ty, z0 + tz) in padded
  // coordinates: the tile and its halo. A work-group past the array's
  // edge clamps its loads to the input; those values feed no output.
  __local float tile[LTZ][LTY][LTX];
  const int pxm = px - 1;
  const int pym = HYM + ny + HYP - 1;
  const int pzm = HZM + nz + HZP - 1;
  // Neighbouring work-items load neighbouring values, so the loads
  // coalesce.
  for (int tz = lz; tz < LTZ; tz += WZ) {
    const int gz = min(z0 + tz, pzm);
    for (int ty = ly; ty < LTY; ty += WY) {
      const int gy = min(y0 + ty, pym);
      for (int tx = lx; tx < LTX; tx += WX) {
        tile[tz][ty][tx] = in[gz * sz + gy * sy + min(x0 + tx, pxm)];
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif

  UNROLL
  for (int cz = 0; cz < CZ; cz++) {
    const int z = z0 + cz * WZ + lz;
    UNROLL
    for (int cy = 0; cy < CY; cy++) {
      const int y = y0 + cy * WY + ly;
      UNROLL
      for (int cx = 0; cx < CX; cx++) {
        // BX divides nx (Geometry rejects the rest), so a block is
        // either wholly inside the array or wholly past its edge.
        const int x = x0 + (cx * WX + lx) * BX;
        if (x < nx && y < ny && z < nz) {
#if TECH == 2
          const int bx = x - x0 + HXM;
          const int by = y - y0 + HYM;
          const int bz = z - z0 + HZM;
#define T(dx, dy, dz, k) acc += WEIGHT(k) * tile[bz + (dz)][by + (dy)][bx + (dx)];
#else
          const int base = (z + HZM) * sz + (y + HYM) * sy + x + HXM;
#if TECH == 0
#define T(dx, dy, dz, k) acc += WEIGHT(k) * in[base + (dz) * sz + (dy) * sy + (dx)];
#elif TECH == 1
#define T(dx, dy, dz, k) acc += WEIGHT(k) * XCAT(vload, BX)(0, in + base + (dz) * sz + (dy) * sy + (dx));
#else
#define T(dx, dy, dz, k) acc += WEIGHT(k) * read_imagef(img, base + (dz) * sz + (dy) * sy + (dx)).x;
#endif
#endif
          FLOATV acc = (FLOATV)(0.0f);
          TERMS
#undef T
          const int o = (z * ny + y) * nx + x;
#if BX == 1
          out[o] = acc;
#else
          XCAT(vstore, BX)(acc, 0, out + o);
#endif
        }
      }
    }
  }
}
