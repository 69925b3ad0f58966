"""Marks the wheel as platform-specific: it bundles libtoolerr.so (configuration is in pyproject.toml)."""

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


setup(distclass=BinaryDistribution)
