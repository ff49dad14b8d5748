// Reads a 1D image buffer of floats and writes an RGBA one (image1d_buffer_t,
// write_imagef). MODE 0 and 1 write the same pixels (1 from the last); 2
// leaves the last pixel unwritten; 3 writes another value there.
__kernel void bufout(__read_only image1d_buffer_t in, __write_only image1d_buffer_t out, const int n) {
    const int i = get_global_id(0);
    if (i >= n) {
        return;
    }
    const int at = MODE == 1 ? n - 1 - i : i;
    const float v = read_imagef(in, at).x;
    if (MODE == 2 && at == n - 1) {
        return;
    }
    write_imagef(out, at, (float4)(v, 2.0f * v, 1.0f - v, MODE == 3 && at == n - 1 ? 0.5f : 1.0f));
}
