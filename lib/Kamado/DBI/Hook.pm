package Kamado::DBI::Hook;
use 5.024;
use strict;
# (no `use warnings`: loaded into fork mode's zygote, which stays small
# until a script loads DBI, which brings warnings itself)

# Routes DBI->connect through Kamado::DBI as soon as DBI is loaded: at
# once if it is, else by an entry at the front of @INC that, when DBI.pm
# is first required, loads it and then Kamado::DBI. A worker that never
# runs a script using DBI never loads either.

our $busy;    # inside our own require DBI

sub install {
    return _loaded() if $INC{'DBI.pm'};
    unshift @INC, \&_inc unless grep { ref $_ && $_ == \&_inc } @INC;
}

sub _inc {
    my (undef, $file) = @_;
    return if $busy || $file ne 'DBI.pm';
    local $busy = 1;
    require DBI;
    _loaded();
    # (DBI is compiled and in %INC: perl runs this instead of reading it again)
    open my $fh, '<', \"1;\n";
    return $fh;
}

sub _loaded {
    require Kamado::DBI;
    Kamado::DBI::install();
}

1;
__END__

=head1 NAME

Kamado::DBI::Hook - route DBI->connect through Kamado::DBI once DBI loads

=head1 SYNOPSIS

    Kamado::DBI::Hook::install();

=cut
