// Text helpers for the self-contained HTML report: escaping and base64 (images are embedded as
// data: URIs so that the page is one file).
#pragma once

#include <string>
#include <string_view>

namespace dpmcmc {

// &, <, >, " and ' as character references.
std::string html_escape(std::string_view text);

// RFC 4648 base64 with padding.
std::string base64(std::string_view bytes);

}  // namespace dpmcmc
