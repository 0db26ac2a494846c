// Web and e-mail addresses, read piece by piece: "www.shop.com" -> w w w dot shop
// dot com, "sales@shop.com" -> sales at shop dot com; a URL's scheme is not said.
#pragma once

#include <cstddef>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// An address starting at i ("www.", "http://", "https://", or a token with @ and a
// dot after it).
size_t RewriteWebAddress(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
