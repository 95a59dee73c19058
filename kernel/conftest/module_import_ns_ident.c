// SPDX-License-Identifier: GPL-2.0
/*
 * AXL_HAVE_MODULE_IMPORT_NS_IDENT: MODULE_IMPORT_NS() stringifies a bare
 * name. Where it takes a string (6.13 on) the bare name is an undeclared
 * identifier and this does not compile.
 */
#include <linux/module.h>

MODULE_IMPORT_NS(DMA_BUF);
