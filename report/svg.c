/* The report's SVG writer: elements written straight to a stream; text is
 * always escaped, so any run's names give well-formed XML. */
#include <math.h>
#include <stdio.h>

#include "report/svg.h"

/* The entity that stands for c in XML text and attributes, or NULL. */
static const char *entity(char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\'':
        return "&apos;";
    default:
        return NULL;
    }
}

void svg_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *e = entity(*s);
        if (e) {
            fputs(e, f);
        } else {
            fputc(*s, f);
        }
    }
}

void svg_escape_to(char *buf, size_t size, const char *s)
{
    size_t n = 0;
    for (; *s && n + 7 < size; s++) {
        const char *e = entity(*s);
        n += e ? (size_t)snprintf(buf + n, size - n, "%s", e) : 0;
        if (!e) {
            buf[n++] = *s;
        }
    }
    buf[n] = '\0';
}

void svg_begin(FILE *f, double width, double height, const char *title)
{
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
            "font-family=\"sans-serif\">\n<title>",
            width, height, width, height);
    svg_escape(f, title);
    fputs("</title>\n", f);
}

void svg_end(FILE *f)
{
    fputs("</svg>\n", f);
}

void svg_rect(FILE *f, double x, double y, double w, double h, const char *fill,
              const char *attrs)
{
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"%s\"%s%s/>\n",
            x, y, w, h, fill, attrs ? " " : "", attrs ? attrs : "");
}

void svg_line(FILE *f, double x1, double y1, double x2, double y2,
              const char *stroke, double stroke_width)
{
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"%.1f\"/>\n",
            x1, y1, x2, y2, stroke, stroke_width);
}

void svg_text(FILE *f, double x, double y, const char *anchor, double size_px,
              const char *fill, int rotate, const char *text)
{
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
            "font-size=\"%.1f\" fill=\"%s\"",
            x, y, anchor, size_px, fill);
    if (rotate) {
        fprintf(f, " transform=\"rotate(%d %.1f %.1f)\"", rotate, x, y);
    }
    fputc('>', f);
    svg_escape(f, text);
    fputs("</text>\n", f);
}

void svg_polyline(FILE *f, const double *x, const double *y, int n,
                  const char *stroke, const char *dash)
{
    fputs("<polyline fill=\"none\" stroke-width=\"2\" points=\"", f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
    }
    fprintf(f, "\" stroke=\"%s\"", stroke);
    if (dash) {
        fprintf(f, " stroke-dasharray=\"%s\"", dash);
    }
    fputs("/>\n", f);
}

void svg_circle(FILE *f, double x, double y, double r, const char *fill)
{
    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", x,
            y, r, fill);
}

double svg_axis_px(const struct svg_axis *a, double v)
{
    double lo = a->lo, hi = a->hi;
    if (a->is_log) {
        lo = log(lo);
        hi = log(hi);
        v = log(v);
    }
    double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    return a->px_lo + t * (a->px_hi - a->px_lo);
}

void svg_format_bytes(char *buf, size_t size, double bytes)
{
    static const char *const units[] = {"", "K", "M", "G", "T"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    if (bytes == floor(bytes)) {
        snprintf(buf, size, "%.0f%s", bytes, units[u]);
    } else {
        snprintf(buf, size, "%.1f%s", bytes, units[u]);
    }
}

void svg_format_us(char *buf, size_t size, double us)
{
    if (us >= 1e6) {
        snprintf(buf, size, "%g s", us / 1e6);
    } else if (us >= 1e3) {
        snprintf(buf, size, "%g ms", us / 1e3);
    } else {
        snprintf(buf, size, "%g us", us);
    }
}
