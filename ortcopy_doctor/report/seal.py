"""The key of a report's cache (``analysed_by``): the functions live in ``model.seal`` (``Report.to_document`` keys
the document it makes), named here too, where the tests and older code import them."""

from __future__ import annotations

from ortcopy_doctor.model.seal import ANALYSIS_PACKAGES as ANALYSIS_PACKAGES
from ortcopy_doctor.model.seal import analysis_key as analysis_key
from ortcopy_doctor.model.seal import code_digest as code_digest

__all__ = ["ANALYSIS_PACKAGES", "analysis_key", "code_digest"]
