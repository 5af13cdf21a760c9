/* The report's own small SVG writer: elements written straight to a
 * stream, every text escaped, numbers in plain decimal. Private to report/. */
#ifndef REPORT_SVG_H
#define REPORT_SVG_H

#include <stdbool.h>
#include <stdio.h>

/* <svg> with the namespace, a size in px and a <title> (escaped). */
void svg_begin(FILE *f, double width, double height, const char *title);
void svg_end(FILE *f);
/* s with &, <, >, " and ' escaped. */
void svg_escape(FILE *f, const char *s);
/* The same into buf (size at least 8), cut short if it does not fit. */
void svg_escape_to(char *buf, size_t size, const char *s);
/* A rectangle; attrs (raw attribute text, may be NULL) is added as is. */
void svg_rect(FILE *f, double x, double y, double w, double h, const char *fill,
              const char *attrs);
void svg_line(FILE *f, double x1, double y1, double x2, double y2,
              const char *stroke, double stroke_width);
/* Text (escaped) at (x, y); anchor "start", "middle" or "end"; rotate
 * -90 turns it for a vertical axis. */
void svg_text(FILE *f, double x, double y, const char *anchor, double size_px,
              const char *fill, int rotate, const char *text);
/* Open polyline through n points; dash is an SVG dash array ("6 4"), or
 * NULL for a solid line. */
void svg_polyline(FILE *f, const double *x, const double *y, int n,
                  const char *stroke, const char *dash);
void svg_circle(FILE *f, double x, double y, double r, const char *fill);

/* An axis: values lo..hi onto pixels px_lo..px_hi, on a log scale when
 * is_log (lo > 0 then). */
struct svg_axis {
    double lo, hi, px_lo, px_hi;
    bool is_log;
};
double svg_axis_px(const struct svg_axis *a, double v);

/* Microseconds as 50 us, 2 ms, 1 s (caller's buffer). */
void svg_format_us(char *buf, size_t size, double us);
/* Bytes as 512, 1K, 64K, 1M, 1.5K (caller's buffer). */
void svg_format_bytes(char *buf, size_t size, double bytes);

#endif
