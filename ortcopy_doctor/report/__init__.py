"""The report: findings, copies and advice analysed from evidence (``analyse``), the CI gate, and report diffs."""

from ortcopy_doctor.model.report import REPORT_FORMAT, REPORT_FORMAT_VERSION, Report, Summary
from ortcopy_doctor.report.core import analyse, load_report

__all__ = ["REPORT_FORMAT", "REPORT_FORMAT_VERSION", "Report", "Summary", "analyse", "load_report"]
