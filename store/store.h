/* Kept for decision/, which includes it: every public header of store/ in
 * one. New code includes the header of the concern it uses. */
#ifndef STORE_H
#define STORE_H

#include "store/export.h"
#include "store/journal.h"
#include "store/libraries.h"
#include "store/rundir.h"
#include "store/tables.h"

#endif
