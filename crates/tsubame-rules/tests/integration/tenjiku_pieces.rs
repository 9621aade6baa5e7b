//! One test per Tenjiku piece kind and promoted kind: the squares it reaches from the middle
//! of an empty board, drawn as the seed draws its movement diagrams, for both sides.
//!
//! A diagram is the 9x9 window around the piece as sente sees it (forward is up): `x` a square
//! it can move to, `o` the piece, `*` the piece when it can also pass. A line marked at the last
//! two squares of the window is a slide that goes on to the edge of the board.

use crate::diagrams;

use crate::diagrams::check;

/// "The king can step one square in any direction, orthogonal or diagonal."
#[test]
fn king() {
    check("K", &diagrams::KING);
}

/// "When making a capture, the great general can jump any number of lower-ranking pieces in any one of the eight directions. Otherwise it ranges without jumping."
#[test]
fn great_general() {
    check("Q!", &diagrams::QUEEN);
}

/// "The vice general may make either a range-jumping move or an area move on any one turn."
#[test]
fn vice_general() {
    check("V!", &diagrams::VICE_GENERAL);
}

/// "When making a capture, the rook general can jump any number of lower-ranking pieces along any orthogonal. Otherwise it ranges without jumping."
#[test]
fn rook_general() {
    check("R!", &diagrams::ROOK);
}

/// "When making a capture, the bishop general can jump any number of lower-ranking pieces along any diagonal. Otherwise it ranges without jumping."
#[test]
fn bishop_general() {
    check("B!", &diagrams::BISHOP);
}

/// "The free eagle can move any number of free squares in any of the eight directions. It can jump to the second square in any orthogonal direction."
#[test]
fn free_eagle() {
    check("Q'", &diagrams::QUEEN);
}

/// "The free king can move any number of free squares in any of the eight directions, orthogonal or diagonal."
#[test]
fn free_king() {
    check("Q", &diagrams::QUEEN);
}

/// "The soaring eagle can move any number of free squares in any direction except diagonally forward. It can step twice, or jump two squares, diagonally forward."
#[test]
fn soaring_eagle() {
    check("E!", &diagrams::SOARING_EAGLE);
}

/// "The horned falcon can move any number of free squares along any direction except directly forwards. It can step twice, or jump two squares, directly forward."
#[test]
fn horned_falcon() {
    check("F!", &diagrams::HORNED_FALCON);
}

/// "The water buffalo can move any number of free squares in the four diagonal directions, or orthogonally sideways. It can move one or two squares directly forward or backward."
#[test]
fn water_buffalo() {
    check("W!", &diagrams::WATER_BUFFALO);
}

/// "The chariot soldier can move any number of free squares in the four diagonal directions, or directly forward or backward. It can move one or two squares sideways."
#[test]
fn chariot_soldier() {
    check("C!", &diagrams::CHARIOT_SOLDIER);
}

/// "It can move any number of free squares in the four diagonal directions, or directly forward or backward. It can step in any direction up to three times per turn."
#[test]
fn fire_demon() {
    check("D!", &diagrams::FIRE_DEMON);
}

/// "The lion hawk can move any number of free squares in the four diagonal directions. It can move as a lion."
#[test]
fn lion_hawk() {
    check("H!", &diagrams::LION_HAWK);
}

/// "The lion can step in any direction, and capture, up to twice in a turn. A lion can jump anywhere within a distance of two squares."
#[test]
fn lion() {
    check("L!", &diagrams::LION);
}

/// "The dragon king moves as either a rook or a king."
#[test]
fn dragon_king() {
    check("D", &diagrams::DRAGON_KING);
}

/// "The dragon horse moves as either a bishop or a king."
#[test]
fn dragon_horse() {
    check("H", &diagrams::DRAGON_HORSE);
}

/// "The rook can move any number of free squares along any of the four orthogonal directions."
#[test]
fn rook() {
    check("R", &diagrams::ROOK);
}

/// "The bishop can move any number of free squares along any of the four diagonal directions."
#[test]
fn bishop() {
    check("B", &diagrams::BISHOP);
}

/// "The kirin can move one square in one of the four diagonal directions. It can jump to the second square in one of the four orthogonal directions."
#[test]
fn kirin() {
    check("O", &diagrams::KIRIN);
}

/// "The phoenix can move one square in one of the four orthogonal directions. It can jump to the second square in one of the four diagonal directions."
#[test]
fn phoenix() {
    check("X", &diagrams::PHOENIX);
}

/// "The drunken elephant can move one square in any direction except directly backward."
#[test]
fn drunk_elephant() {
    check("E", &diagrams::DRUNK_ELEPHANT);
}

/// "The blind tiger can move one square in any direction except directly forward."
#[test]
fn blind_tiger() {
    check("T", &diagrams::BLIND_TIGER);
}

/// "The leopard can step one square in the four diagonal directions, or directly forward or backward."
#[test]
fn ferocious_leopard() {
    check("F", &diagrams::FEROCIOUS_LEOPARD);
}

/// "The gold general can step one square in the four orthogonal directions, or diagonally forward."
#[test]
fn gold_general() {
    check("G", &diagrams::GOLD);
}

/// "The silver general can move one square in the four diagonal directions, or directly forward."
#[test]
fn silver_general() {
    check("S", &diagrams::SILVER);
}

/// "The copper general can move one square directly forward or backward, or one square diagonally forward."
#[test]
fn copper_general() {
    check("C", &diagrams::COPPER);
}

/// "The vertical mover can move any number of free squares orthogonally forward or backward. It can move one square orthogonally sideways."
#[test]
fn vertical_mover() {
    check("V", &diagrams::VERTICAL_MOVER);
}

/// "The side mover can move any number of free squares orthogonally sideways. It can move one square directly forward or backward."
#[test]
fn side_mover() {
    check("M", &diagrams::SIDE_MOVER);
}

/// "The reverse chariot can move any number of free squares orthogonally forward or backward."
#[test]
fn reverse_chariot() {
    check("A", &diagrams::REVERSE_CHARIOT);
}

/// "The vertical soldier can move any number of free squares orthogonally forward. It can move one or two squares orthogonally sideways. It can move one square directly backward."
#[test]
fn vertical_soldier() {
    check("V'", &diagrams::VERTICAL_SOLDIER);
}

/// "The side soldier can move any number of free squares orthogonally sideways. It can move one or two squares directly forward. It can move one square directly backward."
#[test]
fn side_soldier() {
    check("S'", &diagrams::SIDE_SOLDIER);
}

/// "The lance can move any number of free squares directly forward."
#[test]
fn lance() {
    check("L", &diagrams::LANCE);
}

/// "The knight jumps one square forward plus one square diagonally forward."
#[test]
fn knight() {
    check("N", &diagrams::KNIGHT);
}

/// "The iron general can move one square forward, either orthogonally or diagonally."
#[test]
fn iron_general() {
    check("I", &diagrams::IRON);
}

/// "The dog can move one square directly forward, or diagonally backward."
#[test]
fn dog() {
    check("D'", &diagrams::DOG);
}

/// "A pawn can step one square directly forward."
#[test]
fn pawn() {
    check("P", &diagrams::PAWN);
}

/// "Rook general promotes to great general."
#[test]
fn promoted_rook_general() {
    check("+R!", &diagrams::QUEEN);
}

/// "Bishop general promotes to vice general."
#[test]
fn promoted_bishop_general() {
    check("+B!", &diagrams::VICE_GENERAL);
}

/// "Free king promotes to free eagle."
#[test]
fn promoted_free_king() {
    check("+Q", &diagrams::QUEEN);
}

/// "Soaring eagle promotes to rook general."
#[test]
fn promoted_soaring_eagle() {
    check("+E!", &diagrams::ROOK);
}

/// "Horned falcon promotes to bishop general."
#[test]
fn promoted_horned_falcon() {
    check("+F!", &diagrams::BISHOP);
}

/// "Water buffalo promotes to fire demon."
#[test]
fn promoted_water_buffalo() {
    check("+W!", &diagrams::FIRE_DEMON);
}

/// "It can move any number of free squares along any one of the four diagonals, skipping any intervening piece on the adjacent square. It can move two or three squares orthogonally sideways."
#[test]
fn heavenly_tetrarch() {
    check("+C!", &diagrams::TETRARCH);
}

/// "Lion promotes to lion hawk."
#[test]
fn promoted_lion() {
    check("+L!", &diagrams::LION_HAWK);
}

/// "Dragon king promotes to soaring eagle."
#[test]
fn promoted_dragon_king() {
    check("+D", &diagrams::SOARING_EAGLE);
}

/// "Dragon horse promotes to horned falcon."
#[test]
fn promoted_dragon_horse() {
    check("+H", &diagrams::HORNED_FALCON);
}

/// "Rook promotes to dragon king."
#[test]
fn promoted_rook() {
    check("+R", &diagrams::DRAGON_KING);
}

/// "Bishop promotes to dragon horse."
#[test]
fn promoted_bishop() {
    check("+B", &diagrams::DRAGON_HORSE);
}

/// "Kirin promotes to lion."
#[test]
fn promoted_kirin() {
    check("+O", &diagrams::LION);
}

/// "Phoenix promotes to free king."
#[test]
fn promoted_phoenix() {
    check("+X", &diagrams::QUEEN);
}

/// "The crown prince can move one square in any direction."
#[test]
fn crown_prince() {
    check("+E", &diagrams::KING);
}

/// "The flying stag can move any number of free squares directly forward or backward. It can move one square in any direction."
#[test]
fn flying_stag() {
    check("+T", &diagrams::FLYING_STAG);
}

/// "Ferocious leopard promotes to bishop."
#[test]
fn promoted_ferocious_leopard() {
    check("+F", &diagrams::BISHOP);
}

/// "Gold general promotes to rook."
#[test]
fn promoted_gold_general() {
    check("+G", &diagrams::ROOK);
}

/// "Silver general promotes to vertical mover."
#[test]
fn promoted_silver_general() {
    check("+S", &diagrams::VERTICAL_MOVER);
}

/// "Copper general promotes to side mover."
#[test]
fn promoted_copper_general() {
    check("+C", &diagrams::SIDE_MOVER);
}

/// "The flying ox can move any number of free squares along any one of the four diagonal directions, or directly forward or backward."
#[test]
fn flying_ox() {
    check("+V", &diagrams::FLYING_OX);
}

/// "The free boar can range any number of free squares along any one of the four diagonal directions, or directly to either side."
#[test]
fn free_boar() {
    check("+M", &diagrams::FREE_BOAR);
}

/// "The whale can move any number of free squares orthogonally forward or backward, or diagonally backward."
#[test]
fn whale() {
    check("+A", &diagrams::WHALE);
}

/// "Vertical soldier promotes to chariot soldier."
#[test]
fn promoted_vertical_soldier() {
    check("+V'", &diagrams::CHARIOT_SOLDIER);
}

/// "Side soldier promotes to water buffalo."
#[test]
fn promoted_side_soldier() {
    check("+S'", &diagrams::WATER_BUFFALO);
}

/// "The white horse can move any number of free squares orthogonally forward or backward, or diagonally forward."
#[test]
fn white_horse() {
    check("+L", &diagrams::WHITE_HORSE);
}

/// "Knight promotes to side soldier."
#[test]
fn promoted_knight() {
    check("+N", &diagrams::SIDE_SOLDIER);
}

/// "Iron general promotes to vertical soldier."
#[test]
fn promoted_iron_general() {
    check("+I", &diagrams::VERTICAL_SOLDIER);
}

/// "The multi general can move any number of free squares directly forward or diagonally backward."
#[test]
fn multi_general() {
    check("+D'", &diagrams::MULTI_GENERAL);
}

/// "Pawn promotes to gold general."
#[test]
fn promoted_pawn() {
    check("+P", &diagrams::GOLD);
}
