"""The vector the chosen documents' pages are searched by (``query.question.page_vector``)."""

from __future__ import annotations

import numpy as np

from query.question import page_vector


def test_the_mean_of_the_questions_vector_and_its_lexical_texts_at_unit_length():
    question, lexical = np.array([1.0, 0.0, 0.0], np.float32), np.array([0.0, 1.0, 0.0], np.float32)
    got = page_vector(np.stack([question, lexical]))
    assert np.allclose(got, [2 ** -0.5, 2 ** -0.5, 0.0])
    assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-6


def test_one_text_gives_its_own_vector():
    one = np.array([[0.6, 0.8, 0.0]], np.float32)
    assert np.allclose(page_vector(one), one[0])


def test_opposite_vectors_fall_back_to_the_questions():
    question = np.array([1.0, 0.0], np.float32)
    assert np.allclose(page_vector(np.stack([question, -question])), question)
