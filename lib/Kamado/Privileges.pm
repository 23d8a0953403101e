package Kamado::Privileges;
use 5.024;
use strict;
use warnings;

use POSIX ();

# --user and --group: the ids to run as, looked up before anything is
# bound (an unknown name stops the start at once), and the drop itself,
# after the listeners are bound and the error log is open, before the app
# is loaded.

# (user, group) names or numbers -> {uid, gid, groups => [gids], user,
# group}, undef for each not given; dies with one line naming the option.
sub resolve {
    my ($class, $user, $group) = @_;
    my %ids;
    if (defined $user) {
        my @pw = $user =~ /\A[0-9]+\z/ ? getpwuid($user) : getpwnam($user);
        die "kamado: --user $user: no such user\n" unless @pw;
        @ids{qw(user uid gid)} = @pw[0, 2, 3];
    }
    if (defined $group) {
        my @gr = $group =~ /\A[0-9]+\z/ ? getgrgid($group) : getgrnam($group);
        die "kamado: --group $group: no such group\n" unless @gr;
        @ids{qw(group gid)} = @gr[0, 2];
    }
    return undef unless %ids;
    # the user's supplementary groups (initgroups), or the one group
    my %groups = ($ids{gid} => 1);
    if (defined $ids{user}) {
        setgrent();
        while (my @gr = getgrent()) {
            $groups{ $gr[2] } = 1 if grep { $_ eq $ids{user} } split ' ', $gr[3] // '';
        }
        endgrent();
    }
    $ids{groups} = [sort { $a <=> $b } keys %groups];
    return \%ids;
}

# Becomes $ids: supplementary groups, then the group, then the user (each
# real, effective and saved); dies with one line unless all took, and
# root cannot be got back.
sub drop {
    my ($class, $ids) = @_;
    my $what = join ' ', map { defined $ids->{$_} ? "--$_ $ids->{$_}" : () } qw(user group);
    my $gid = $ids->{gid};
    local $!;
    $) = join ' ', $gid, $ids->{groups}->@*;    # setgroups() and the effective group
    POSIX::setgid($gid) or die "kamado: $what: can't set group $gid: $!\n";
    my %want = map { ($_ => 1) } $gid, $ids->{groups}->@*;
    my @have = split ' ', $);
    die "kamado: $what: can't set the groups to @{[ sort keys %want ]} (have $))\n"
        if $( != $gid || (split ' ', $()[0] != $gid || grep { !$want{$_} } @have;
    return 1 unless defined $ids->{uid};
    my $uid = $ids->{uid};
    POSIX::setuid($uid) or die "kamado: $what: can't set user $uid: $!\n";
    die "kamado: $what: still uid $< (effective $>), not $uid\n" if $< != $uid || $> != $uid;
    die "kamado: $what: root could be got back\n" if $uid != 0 && POSIX::setuid(0);
    return 1;
}

1;
__END__

=head1 NAME

Kamado::Privileges - C<--user> and C<--group>: the ids, and the drop

=head1 SYNOPSIS

    my $ids = Kamado::Privileges->resolve('www-data', undef);   # dies if unknown
    # ... bind the listeners, open the error log ...
    Kamado::Privileges->drop($ids) if $ids;                   # dies if it fails

=head1 DESCRIPTION

C<resolve> looks up a user and a group (names or numbers): the user's
uid and primary group, the group's gid (which wins over the user's), and
the user's supplementary groups from the group database, as
C<initgroups(3)> finds them. C<drop> sets them in that order
(C<setgroups>, C<setgid>, C<setuid>, each real, effective and saved) and
checks the result, so a server never runs on as root by mistake.

=cut
