"""Typed records shared by every layer (pydantic documents carrying a ``schema``).

Import the submodules directly (``from truegreen.model.exam import Exam``); this
package imports nothing, so adding a model file never touches this one.
"""
